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

/**
 * What became of one order of a batch: a fill, or the error the venue gave. A failure that is
 * neither temporary nor permanent (the venue unreachable, say) leaves the order's outcome
 * unknown: the caller must place it again later under the same client order id.
 */
export type FxOutcome = { fill: FxFill } | { error: unknown };

/** Where NGN is sold for USD. Implementations must be idempotent by `clientOrderId`. */
export interface FxVenue {
  readonly name: string;
  execute(order: FxOrder): Promise<FxFill>;
  /** Several orders at once, one outcome each in order (a venue with a batch endpoint). */
  executeAll?(orders: FxOrder[]): Promise<FxOutcome[]>;
}

/** Places a batch: through the venue's batch call when it has one, else order by order. */
export async function placeOrders(venue: FxVenue, orders: FxOrder[]): Promise<FxOutcome[]> {
  if (orders.length === 0) return [];
  if (venue.executeAll) return venue.executeAll(orders);
  return Promise.all(
    orders.map((order) =>
      venue.execute(order).then(
        (fill): FxOutcome => ({ fill }),
        (error: unknown): FxOutcome => ({ error }),
      ),
    ),
  );
}
