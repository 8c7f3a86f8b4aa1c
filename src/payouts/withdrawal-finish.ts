import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Payout } from './payout.entity';
import { Withdrawal } from './withdrawal.entity';
import { moveWithdrawal, type WithdrawalMove } from './payout-transitions';

/**
 * The withdrawal stage: a withdrawal follows its payout. Called inside the payout's own
 * transaction, holding the payout's row lock, so a withdrawal's moves are as ordered as its
 * payout's.
 */
function lockedWithdrawalOf(tx: EntityManager, payout: Payout): Promise<Withdrawal> {
  return tx.findOneOrFail(
    Withdrawal,
    { id: payout.withdrawalId! },
    { lockMode: LockMode.PESSIMISTIC_WRITE },
  );
}

/**
 * Its payout's transfer was relayed: the withdrawal shows BROADCAST with the hash, the newest
 * one after a fee bump. A finished withdrawal keeps what it has.
 */
export async function recordWithdrawalBroadcast(
  tx: EntityManager,
  payout: Payout,
  now: Date,
): Promise<void> {
  const withdrawal = await lockedWithdrawalOf(tx, payout);
  if (withdrawal.status === 'PENDING') {
    moveWithdrawal(withdrawal, { to: 'BROADCAST', txHash: payout.txHash }, now);
  } else if (withdrawal.status === 'BROADCAST') {
    // Still BROADCAST (not a move): a replacement transaction's hash.
    withdrawal.txHash = payout.txHash;
    withdrawal.updatedAt = now;
  }
}

/**
 * Its payout ended: COMPLETED when the transfer confirmed, FAILED when it reverted or was
 * cancelled before signing (the caller books the amount back to the merchant).
 */
export async function finishWithdrawal(
  tx: EntityManager,
  payout: Payout,
  outcome: Extract<WithdrawalMove, { to: 'COMPLETED' | 'FAILED' }>,
  now: Date,
): Promise<void> {
  const withdrawal = await lockedWithdrawalOf(tx, payout);
  moveWithdrawal(withdrawal, outcome, now);
  await tx.flush();
}
