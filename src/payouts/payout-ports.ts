import type { EntityManager } from '@mikro-orm/postgresql';
import type { MinedReceipt } from '../adapters/chain/chain-gateway';
import type { RiskDecision } from '../domain/risk-rules';
import type { Payout } from './payout.entity';

/** A payout whose transaction is mined with enough confirmations, and that transaction's receipt. */
export interface MinedPayout {
  payoutId: string;
  receipt: MinedReceipt;
}

/**
 * What payouts need from outside the module, as ports the composition root fills from the
 * flows (src/flows/confirm-payouts.ts, cancel-payout.ts) and the deposits' risk review, so
 * payouts import no other module.
 */
export interface MinedPayoutBooking {
  /** Books mined payouts and their owners in one transaction; answers how many it booked. */
  settle(em: EntityManager, mined: MinedPayout[]): Promise<number>;
}

export interface CancelledPayoutOwner {
  /** The deposit behind a payout just cancelled in `tx` moves to FLAGGED with `reason`. */
  flagDeposit(tx: EntityManager, depositId: string, reason: string): Promise<void>;
}

export interface PayoutRiskReview {
  reviewAll(tx: EntityManager, payouts: Payout[]): Promise<RiskDecision[]>;
}
