import type { EntityManager } from '@mikro-orm/postgresql';
import type { PayoutStatus } from '../domain/payout-lifecycle';

/**
 * What deposits need of the payouts and rates modules, as ports the composition root fills with those
 * modules' entry points (src/container.ts), so deposits import neither.
 */

/** A payout to create for a converted AUTO_WITHDRAW deposit. */
export interface PayoutOrder {
  merchantId: string;
  chain: string;
  asset: string;
  toAddress: string;
  amount: string;
  depositId: string;
  /** The trace its spans join (the settlement span's `traceparent`); null when untraced. */
  traceParent: string | null;
}

export interface DepositPayouts {
  /** Inside the caller's transaction, in one statement. */
  create(tx: EntityManager, orders: PayoutOrder[]): Promise<unknown>;
  /** The deposit's PENDING payout, if any, cancelled in `tx` (a bank reversal stops it). */
  cancelPendingOfDeposit(tx: EntityManager, depositId: string, why: string): Promise<void>;
}

/** A deposit's newest payout, as a resolution's plan reads it. */
export interface PayoutFacts {
  id: string;
  status: PayoutStatus;
  amount: string;
}

/** A published rate, as a resolution re-quotes with it. */
export interface RateFacts {
  id: string;
  to: string;
  inverseRate: string;
}

export interface ResolutionReads {
  latestPayoutOf(tx: EntityManager, depositId: string): Promise<PayoutFacts | null>;
  getRate(tx: EntityManager, rateId: string): Promise<RateFacts>;
  newestValidRate(tx: EntityManager, to: string, now: Date): Promise<RateFacts | null>;
}
