import type { Deposit } from './deposit.entity';
import { transition, type DepositStatus } from '../domain/deposit-state-machine';

// A deposit's move in memory, apart from its effects (deposit-transitions.ts: limits, holding
// accounts, saving): ingestion gives a new deposit its first status with it too.

export interface MoveOptions {
  /** flag_reason (to FLAGGED) or failure_reason (to FAILED). */
  reason?: string;
  /**
   * The NGN has left the operator (a bank reversal): the caller books where it went, so the
   * move does not carry it between holding accounts.
   */
  ngnLeft?: boolean;
}

/** Checks a move against the table; a move to FLAGGED or FAILED also needs its reason. */
export function checkDepositMove(
  from: DepositStatus | null,
  to: DepositStatus,
  options: MoveOptions,
): void {
  transition(from, to);
  if ((to === 'FLAGGED' || to === 'FAILED') && !options.reason) {
    throw new Error(`a move to ${to} needs a reason`);
  }
}

/** The columns a move writes; a deposit not inserted yet has none of them set. */
export type MovedColumns = Pick<
  Deposit,
  'status' | 'flagReason' | 'failureReason' | 'settledAt' | 'updatedAt'
>;

/**
 * The one place a deposit's status is set in memory, its first one included (a new deposit has
 * no status yet, so its first must be an initial one): checked against the table, with the
 * reason it records. Writes nothing: `moveTo` and `moveAllTo` save, and ingestion inserts.
 */
export function moveDeposit<T extends Partial<MovedColumns>>(
  deposit: T,
  to: DepositStatus,
  options: MoveOptions,
  now: Date,
): asserts deposit is T & MovedColumns {
  checkDepositMove(deposit.status ?? null, to, options);
  const moved: Partial<MovedColumns> = deposit;
  moved.status = to;
  moved.flagReason = to === 'FLAGGED' ? options.reason! : null;
  moved.failureReason = to === 'FAILED' ? options.reason! : null;
  if (to === 'SETTLED') moved.settledAt = now;
  moved.updatedAt = now;
}
