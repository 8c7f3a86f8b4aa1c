import type { EntityManager } from '@mikro-orm/postgresql';

/** One transfer back to a payer's account; `reference` makes it idempotent at the bank. */
export interface OutboundReturn {
  depositId: string;
  merchantId: string;
  /** NGN sent, decimal string with 2 places (the deposit's amount minus the return fee). */
  amountNgn: string;
  toAccount: string;
  bankCode: string | null;
  name: string | null;
  reference: string;
  /** The provider that received the deposit, which sends it back (absent: the pool's bank). */
  provider?: string;
}

/**
 * What the bank answered. `completed`: the money left (RETURNED). `refused`: the bank will not
 * send it, for good (RETURN_FAILED). `accepted`: queued; its completion is learned later (a
 * notification or the next attempt with the same reference). A transport error is thrown and
 * the attempt retried with the same reference.
 */
export type ReturnOutcome =
  { outcome: 'completed' } | { outcome: 'accepted' } | { outcome: 'refused'; reason: string };

/**
 * The bank's outbound side: called outside any database transaction. `em` is a plain
 * EntityManager for the sandbox bank, which reads the merchant's fault scenario; a real bank
 * ignores it.
 */
export interface BankTransfers {
  readonly name: string;
  sendReturn(transfer: OutboundReturn, em: EntityManager): Promise<ReturnOutcome>;
}
