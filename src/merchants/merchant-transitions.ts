import { MERCHANT_LIFECYCLE, type MerchantStatus } from '../domain/merchant-status';
import { checkMove } from '../domain/transitions';
import type { Merchant } from './merchant.entity';

/**
 * The one place a merchant's status is set, its first one included (a merchant not saved yet
 * has none, so its first must be an initial one): checked against MERCHANT_LIFECYCLE. Writes
 * nothing: the caller flushes, holding the merchant's row lock for any move after the first.
 */
export function moveMerchant(merchant: Merchant, to: MerchantStatus, now: Date): void {
  const from = (merchant.status as MerchantStatus | undefined) ?? null;
  checkMove(MERCHANT_LIFECYCLE, from, to);
  merchant.status = to;
  merchant.updatedAt = now;
}
