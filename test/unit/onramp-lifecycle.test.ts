import { OnrampStatus } from '../../src/domain/onramp-kinds';
import { Onramp } from '../../src/onramps/onramp.entity';
import { ONRAMP_LIFECYCLE } from '../../src/domain/onramp-status';
import { moveOnramp, moveOnrampRows } from '../../src/onramps/onramp-transitions';
import { describeLifecycle } from '../support/lifecycle-table';

describeLifecycle(
  ONRAMP_LIFECYCLE,
  ['ACTIVE', 'EXPIRED', 'COMPLETED', 'DEACTIVATED'],
  [
    [null, 'ACTIVE'],
    ['ACTIVE', 'EXPIRED'],
    ['ACTIVE', 'COMPLETED'],
    ['ACTIVE', 'DEACTIVATED'],
  ],
);

describe('moveOnramp: the one place an onramp status is set', () => {
  const now = new Date('2026-06-01T12:00:00Z');

  it('starts a new onramp ACTIVE, expires it, and never brings it back', () => {
    const onramp = new Onramp();
    moveOnramp(onramp, OnrampStatus.ACTIVE, now);
    expect(onramp).toMatchObject({ status: 'ACTIVE', updatedAt: now });
    moveOnramp(onramp, OnrampStatus.EXPIRED, now);
    expect(() => moveOnramp(onramp, OnrampStatus.ACTIVE, now)).toThrow(
      'onramp cannot move from EXPIRED to ACTIVE',
    );
    expect(() => moveOnramp(onramp, OnrampStatus.DEACTIVATED, now)).toThrow(
      'onramp cannot move from EXPIRED to DEACTIVATED',
    );
    expect(onramp.status).toBe('EXPIRED');
  });

  it('completes rows in statements only from ACTIVE', () => {
    expect(moveOnrampRows(OnrampStatus.COMPLETED)).toEqual({
      set: "status = 'COMPLETED'",
      value: "'COMPLETED'",
      allowed: "status in ('ACTIVE')",
    });
    expect(() => moveOnrampRows(OnrampStatus.ACTIVE)).toThrow('no onramp status moves to ACTIVE');
  });
});
