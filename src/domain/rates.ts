import { ASSET_DECIMALS, Dec, dec } from './money';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from './errors';
import { isQuoteCurrency, QuoteCurrency } from './assets';

/** Decimal places kept for published figures. */
export const RATE_DECIMALS = 6; // NGN per unit of asset
export const INVERSE_RATE_DECIMALS = 12; // asset units per NGN

export interface PricedQuote {
  /** NGN per 1 unit of the asset, fee included (what the user pays per unit). */
  rate: Dec;
  /** Asset units per 1 NGN, fee included (what the user receives per naira). */
  inverseRate: Dec;
}

/**
 * The fee rule of docs/api.md ("Rates"): it applies in the direction the user is paid in, so it always
 * reduces what the user receives:
 *   inverse_rate = market_inverse x (1 - fee_bps / 10000), rounded down (never in the user's
 *   favour beyond the quote), and rate = 1 / inverse_rate, rounded up (the user never pays less
 *   NGN per unit than the inverse implies).
 */
export function priceQuote(marketRateNgnPerUnit: Dec, feeBps: number): PricedQuote {
  if (!marketRateNgnPerUnit.isFinite() || marketRateNgnPerUnit.lte(0)) {
    throw new RangeError(`market rate must be positive, got ${marketRateNgnPerUnit.toString()}`);
  }
  if (!Number.isInteger(feeBps) || feeBps < 0 || feeBps >= 10000) {
    throw new RangeError(`fee_bps must be an integer in [0, 10000), got ${feeBps}`);
  }
  const marketInverse = dec(1).div(marketRateNgnPerUnit);
  const inverseRate = marketInverse
    .times(dec(1).minus(dec(feeBps).div(10000)))
    .toDecimalPlaces(INVERSE_RATE_DECIMALS, Dec.ROUND_DOWN);
  if (inverseRate.isZero()) {
    throw new RangeError(`market rate ${marketRateNgnPerUnit.toString()} is too large to quote`);
  }
  const rate = dec(1).div(inverseRate).toDecimalPlaces(RATE_DECIMALS, Dec.ROUND_UP);
  return { rate, inverseRate };
}

/**
 * The conversion rule, the one place it is written: what `amountNgn` buys at a quote's
 * inverse rate, in asset units, rounded down to the asset's 6 decimals (never in the user's
 * favour beyond the quote). Ingestion prices limits with it, settlement credits it.
 */
export function assetForNgn(amountNgn: Dec, inverseRate: Dec | string): Dec {
  return amountNgn.times(inverseRate).toDecimalPlaces(ASSET_DECIMALS, Dec.ROUND_DOWN);
}

export interface RateQuery {
  from: string | undefined;
  to: string | undefined;
}

/** Validates the rate query of both transports: `from` required and NGN; `to` defaults to USDC. */
export function parseRateQuery(query: RateQuery): { from: 'NGN'; to: QuoteCurrency } {
  if (query.from === undefined || query.from === '') throw missingParameter('from');
  if (query.from !== 'NGN') throw invalidParameter('from', 'only NGN is supported');
  const to = query.to === undefined || query.to === '' ? 'USDC' : query.to;
  if (!isQuoteCurrency(to)) throw invalidParameter('to', 'must be one of USDC, USDT, USD');
  return { from: 'NGN', to };
}

export function rateUnavailable(): DomainError {
  return new DomainError(
    ErrorCode.RateUnavailable,
    'No valid rate is available right now; retry in 1-5 minutes',
  );
}
