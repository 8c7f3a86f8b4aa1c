import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { QuoteCurrency } from '../domain/assets';
import { DomainError, ErrorCode } from '../domain/errors';
import { assertRateFitsSettlement, type ValidOnrampRequest } from '../domain/onramp-input';
import type { OnrampRates } from './onramp-ports';

/**
 * Short-lived onramps lock the given rate: unknown is rate_not_found, expired is rate_expired
 * (rate_unavailable when no valid rate exists at all, since a fresh quote would not help).
 * PERMANENT onramps need a valid rate to exist now, though they settle at a later one.
 */
export async function checkOnrampRate(
  rates: OnrampRates,
  clock: Clock,
  em: EntityManager,
  merchantId: string,
  request: ValidOnrampRequest,
): Promise<void> {
  if (request.rateId === null) {
    const to: QuoteCurrency =
      request.settlement.mode === 'AUTO_WITHDRAW' ? request.settlement.asset : 'USD';
    await rates.current(em, { from: 'NGN', to }, merchantId);
    return;
  }
  const rate = await rates.findForMerchant(em, request.rateId, merchantId);
  if (!rate) throw new DomainError(ErrorCode.RateNotFound, `No rate ${request.rateId}`);
  if (rate.expiresAt <= clock.now()) {
    await rates.current(em, { from: 'NGN', to: rate.to }, merchantId);
    throw new DomainError(
      ErrorCode.RateExpired,
      `Rate ${rate.id} expired at ${rate.expiresAt.toISOString()}; fetch a fresh rate and retry`,
    );
  }
  assertRateFitsSettlement(rate.to as QuoteCurrency, request.settlement);
}
