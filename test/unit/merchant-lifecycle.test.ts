import { Merchant } from '../../src/merchants/merchant.entity';
import { MERCHANT_LIFECYCLE, MerchantStatus } from '../../src/domain/merchant-status';
import { IllegalTransitionError } from '../../src/domain/transitions';
import { moveMerchant } from '../../src/merchants';
import { describeLifecycle } from '../support/lifecycle-table';

const { ACTIVE, FROZEN } = MerchantStatus;

describeLifecycle(
  MERCHANT_LIFECYCLE,
  [ACTIVE, FROZEN],
  [
    [null, ACTIVE],
    [ACTIVE, FROZEN],
    [FROZEN, ACTIVE],
  ],
);

describe('moveMerchant: the one place a merchant status is set', () => {
  const now = new Date('2026-06-01T12:00:00Z');

  it('starts a new merchant ACTIVE, freezes and unfreezes it, and refuses freezing it twice', () => {
    const merchant = new Merchant();
    expect(() => moveMerchant(merchant, MerchantStatus.FROZEN, now)).toThrow(
      'merchant cannot move from (new) to FROZEN',
    );
    moveMerchant(merchant, MerchantStatus.ACTIVE, now);
    expect(merchant).toMatchObject({ status: 'ACTIVE', updatedAt: now });
    const later = new Date('2026-06-02T12:00:00Z');
    moveMerchant(merchant, MerchantStatus.FROZEN, later);
    expect(merchant).toMatchObject({ status: 'FROZEN', updatedAt: later });
    expect(() => moveMerchant(merchant, MerchantStatus.FROZEN, now)).toThrow(
      IllegalTransitionError,
    );
    expect(merchant.updatedAt).toBe(later);
    moveMerchant(merchant, MerchantStatus.ACTIVE, now);
    expect(merchant.status).toBe('ACTIVE');
  });
});
