import type { Dec } from '../../domain/money';

export interface FxOrder {
  /** Idempotency key at the venue: one conversion per deposit, however often it is retried. */
  clientOrderId: string;
  merchantId: string;
  amountNgn: Dec;
  /** The quote the deposit converts at; its market rate is what the venue fills at. */
  marketRateNgnPerUsd: Dec;
}

export interface FxFill {
  /** USD the operator receives for the NGN sold (6 decimals). */
  usdBought: Dec;
  venueReference: string;
}

/** The venue answered but could not fill now (liquidity, outage): the deposit is FLAGGED. */
export class FxTemporaryFailure extends Error {
  override readonly name = 'FxTemporaryFailure';
}

/** The venue refused the order for good: the deposit is FAILED and the NGN returned. */
export class FxPermanentFailure extends Error {
  override readonly name = 'FxPermanentFailure';
}

/** Where NGN is sold for USD. Implementations must be idempotent by `clientOrderId`. */
export interface FxVenue {
  readonly name: string;
  execute(order: FxOrder): Promise<FxFill>;
}
