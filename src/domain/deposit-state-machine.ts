import { canMove, checkMove, IllegalTransitionError, type TransitionTable } from './transitions';

export { IllegalTransitionError };

/**
 * The deposit lifecycle as data: the spec's transition table plus the moves docs/api.md adds
 * (manual resolution, reversal outcomes). One generic function checks a move; services do
 * "transition, save, write the event" in one transaction.
 */
export const DEPOSIT_STATUSES = [
  'PENDING_FX',
  'PENDING_WITHDRAWAL',
  'SETTLED',
  'FAILED',
  'FLAGGED',
  'REVERSED',
  'RETURNING',
  'RETURNED',
  'RETURN_FAILED',
] as const;
export type DepositStatus = (typeof DEPOSIT_STATUSES)[number];

/** Where a new deposit may start (decided by the ingestion rules). */
export const INITIAL_STATUSES: readonly DepositStatus[] = ['PENDING_FX', 'FLAGGED', 'FAILED'];

/**
 * Allowed moves. FLAGGED, FAILED, SETTLED and REVERSED are terminal for the automation; only
 * an operator moves FLAGGED (to PENDING_FX at the current rate, or FAILED "returned to
 * sender"), and only a bank reversal moves SETTLED (to REVERSED) or RETURNED (to FLAGGED).
 */
export const DEPOSIT_TRANSITIONS: Readonly<Record<DepositStatus, readonly DepositStatus[]>> = {
  // FX done: to the balance (SETTLED) or on-chain (PENDING_WITHDRAWAL); FX failure, risk
  // rejection or reversal: FLAGGED or FAILED.
  PENDING_FX: ['SETTLED', 'PENDING_WITHDRAWAL', 'FLAGGED', 'FAILED'],
  // Confirmed on-chain: SETTLED; risk rejection, chain outage past its maximum, reversal: FLAGGED.
  PENDING_WITHDRAWAL: ['SETTLED', 'FLAGGED'],
  SETTLED: ['REVERSED'],
  // FAILED stays for deposits the bank reversed (the sender already has the NGN back); every
  // other operator or merchant return sends the NGN back through RETURNING.
  FLAGGED: ['PENDING_FX', 'FAILED', 'RETURNING'],
  FAILED: [],
  REVERSED: [],
  // The bank confirmed the transfer back (RETURNED) or refused it (RETURN_FAILED). A bank
  // reversal cancels a return not yet sent (REVERSED); one already sent may pay the payer a
  // second time: FLAGGED 'Reversal during return', for the operator.
  RETURNING: ['RETURNED', 'RETURN_FAILED', 'REVERSED', 'FLAGGED'],
  // Only a bank reversal leaves it (the payer then has the NGN twice): FLAGGED, as above.
  RETURNED: ['FLAGGED'],
  // Only a new attempt leaves it: the NGN waits in suspense for the operator.
  RETURN_FAILED: ['RETURNING'],
};

/** Each entry into a status produces exactly one event of this kind (docs/api.md, "Webhooks"). */
export const EVENT_ON_ENTRY: Readonly<Record<DepositStatus, string>> = {
  PENDING_FX: 'deposit.created',
  PENDING_WITHDRAWAL: 'deposit.pending_withdrawal',
  SETTLED: 'deposit.settled',
  FAILED: 'deposit.failed',
  FLAGGED: 'deposit.flagged',
  REVERSED: 'deposit.reversed',
  RETURNING: 'deposit.returning',
  RETURNED: 'deposit.returned',
  RETURN_FAILED: 'deposit.return_failed',
};

export function isDepositStatus(value: string): value is DepositStatus {
  return (DEPOSIT_STATUSES as readonly string[]).includes(value);
}

export const DEPOSIT_LIFECYCLE: TransitionTable<DepositStatus> = {
  subject: 'deposit',
  initial: INITIAL_STATUSES,
  moves: DEPOSIT_TRANSITIONS,
};

export function canTransition(from: DepositStatus | null, to: DepositStatus): boolean {
  return canMove(DEPOSIT_LIFECYCLE, from, to);
}

/** Checks a move and names the event it produces; throws on a move outside the table. */
export function transition(from: DepositStatus | null, to: DepositStatus): { event: string } {
  checkMove(DEPOSIT_LIFECYCLE, from, to);
  return { event: EVENT_ON_ENTRY[to] };
}
