import type { Payout } from './payout.entity';
import type { Withdrawal } from './withdrawal.entity';
import {
  PAYOUT_LIFECYCLE,
  WITHDRAWAL_LIFECYCLE,
  type PayoutStatus,
  type WithdrawalStatus,
} from '../domain/payout-lifecycle';
import { checkMove, IllegalTransitionError, sqlMove, type SqlMove } from '../domain/transitions';

/** A payout's move and what the new status records (the table's checks require each). */
export type PayoutMove =
  | { to: 'PENDING' }
  | { to: 'SIGNED'; nonce: number; fromAddress: string; tokenAddress: string; txHash: string }
  | { to: 'CONFIRMED' | 'FAILED'; txHash: string; blockNumber: bigint; blockHash: string }
  /** A reorg removed the block it was booked from: it waits for its nonce again. */
  | { to: 'SIGNED'; reorged: true }
  | { to: 'CANCELLED'; reason: string };

/**
 * The one place a payout's status is set, its first one included: the move is checked against
 * PAYOUT_LIFECYCLE (a row not saved yet has no status, so its first must be an initial one)
 * and recorded with what it carries. Writes nothing: the caller flushes, holding the row's
 * lock (`lockedPayout`) for any move after the first.
 */
export function movePayout(payout: Payout, move: PayoutMove, now: Date): void {
  const from = (payout.status as PayoutStatus | undefined) ?? null;
  checkMove(PAYOUT_LIFECYCLE, from, move.to);
  // The table's two ways into SIGNED carry different things: signing (from PENDING) takes a
  // nonce; a reorg (from CONFIRMED or FAILED) keeps the one it has.
  if (move.to === 'SIGNED' && 'reorged' in move !== (from === 'CONFIRMED' || from === 'FAILED')) {
    throw new IllegalTransitionError('payout', from, move.to);
  }
  switch (move.to) {
    case 'SIGNED':
      if ('reorged' in move) {
        // Its nonce, bytes and hash stay: the same transaction is what must be mined.
        payout.blockNumber = null;
        payout.blockHash = null;
        payout.confirmedAt = null;
        payout.reorgedAt = now;
        break;
      }
      payout.nonce = String(move.nonce);
      payout.fromAddress = move.fromAddress;
      payout.tokenAddress = move.tokenAddress;
      payout.txHash = move.txHash;
      payout.signedAt = now;
      break;
    case 'CONFIRMED':
    case 'FAILED':
      payout.txHash = move.txHash;
      payout.blockNumber = move.blockNumber.toString();
      payout.blockHash = move.blockHash;
      payout.confirmedAt = now;
      break;
    case 'CANCELLED':
      payout.cancelReason = move.reason;
      break;
    case 'PENDING':
      break;
  }
  payout.status = move.to;
  payout.updatedAt = now;
}

/**
 * `movePayout` for the statement that writes payouts back (`savePayouts`), after `movePayout`
 * moved them in memory: the SET item copying each record's status, and the condition that
 * PAYOUT_LIFECYCLE lets the stored status move to it, or the payout keeps its status (a
 * broadcast writes its times only). `stored`, `record`: the two status columns.
 */
export function movePayoutRows(stored: string, record: string): SqlMove {
  return sqlMove(PAYOUT_LIFECYCLE, stored, { column: record }, { unchanged: true });
}

/** A withdrawal's move and what it records; FAILED always says why (internal only). */
export type WithdrawalMove =
  | { to: 'PENDING' }
  | { to: 'BROADCAST'; txHash: string | null }
  | { to: 'COMPLETED'; txHash: string }
  | { to: 'FAILED'; reason: string; txHash: string | null };

/**
 * The one place a withdrawal's status is set, its first one included, checked against
 * WITHDRAWAL_LIFECYCLE. The database trigger writes `withdrawal.completed` / `.failed` to the
 * outbox when the caller flushes (holding the row's lock for any move after the first).
 */
export function moveWithdrawal(withdrawal: Withdrawal, move: WithdrawalMove, now: Date): void {
  const from = (withdrawal.status as WithdrawalStatus | undefined) ?? null;
  checkMove(WITHDRAWAL_LIFECYCLE, from, move.to);
  if (move.to !== 'PENDING' && move.txHash) withdrawal.txHash = move.txHash;
  withdrawal.failureReason = move.to === 'FAILED' ? move.reason : null;
  withdrawal.status = move.to;
  withdrawal.updatedAt = now;
}
