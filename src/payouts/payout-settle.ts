import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Payout } from './payout.entity';
import { Withdrawal } from './withdrawal.entity';
import type { MinedReceipt } from '../adapters/chain/chain-gateway';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import type { LedgerEntry } from '../ledger';
import { payoutHolding, payoutReturn } from './payout-ledger';
import { lockPayouts, savePayouts } from './payout-store';
import { movePayout, moveWithdrawal } from './payout-transitions';
import type { MinedPayout } from './payout-ports';

export type { MinedPayout };

/** What booking mined payouts did, for the flow that moves their deposits in the same transaction. */
export interface BookedPayouts {
  /**
   * Payouts booked by this call (a payout no longer SIGNED when locked is skipped), those
   * booked again after a reorg included (they add no entry and move no owner).
   */
  booked: number;
  /** Their ledger entries, to post with the deposits' moves in one statement. */
  entries: LedgerEntry[];
  /** Each booked payout's deposit id and its transfer's hash and outcome. */
  deposits: Map<string, { hash: string; success: boolean }>;
  /** Each booked payout's withdrawal id and its receipt (`finishMinedWithdrawals`). */
  withdrawals: Map<string, MinedReceipt>;
}

/**
 * Books mined payouts, any number in the caller's transaction (a block's worth from the block
 * follower, one from the sweep): each CONFIRMED (or FAILED if its transaction reverted), its
 * withdrawal COMPLETED (FAILED), and its ledger entry returned for the caller to post with its
 * deposit's move (src/flows/confirm-payouts.ts). Set-based: one locking read and one write per
 * table. A payout no longer SIGNED when locked was booked by someone else (another runner's
 * follower, or the sweep) and is skipped, so any number of callers may meet the same block.
 * Payouts are locked in id order, then their deposits, then their withdrawals
 * (`finishMinedWithdrawals`): two followers settling the same block wait for each other
 * instead of deadlocking.
 */
export async function bookMinedPayouts(
  tx: EntityManager,
  now: Date,
  mined: MinedPayout[],
): Promise<BookedPayouts> {
  const receiptOf = new Map(mined.map((m) => [m.payoutId, m.receipt]));
  // A row moved meanwhile no longer matches once its lock is granted (PostgreSQL rechecks).
  const payouts = await lockPayouts(tx, [...receiptOf.keys()], { order: 'id', status: 'SIGNED' });
  const deposits = new Map<string, { hash: string; success: boolean }>();
  const withdrawals = new Map<string, MinedReceipt>();
  if (payouts.length === 0) return { booked: 0, entries: [], deposits, withdrawals };
  // Booked once already, before a reorg took its block away: its ledger entry and its owner's
  // move stand, so booking it again only records where it is mined now.
  const rebooked = new Set(payouts.filter((p) => p.reorgedAt).map((p) => p.id));
  for (const payout of payouts) {
    const receipt = receiptOf.get(payout.id)!;
    movePayout(
      payout,
      {
        to: receipt.success ? 'CONFIRMED' : 'FAILED',
        txHash: receipt.hash,
        blockNumber: receipt.blockNumber,
        blockHash: receipt.blockHash,
      },
      now,
    );
    if (rebooked.has(payout.id)) continue;
    if (payout.depositId) {
      deposits.set(payout.depositId, { hash: receipt.hash, success: receipt.success });
    }
    if (payout.withdrawalId) withdrawals.set(payout.withdrawalId, receipt);
  }
  await savePayouts(tx, payouts);
  const entries = payouts
    .filter((p) => !rebooked.has(p.id))
    .map((p) => ledgerEntryOf(p, receiptOf.get(p.id)!));
  return { booked: payouts.length, entries, deposits, withdrawals };
}

/** confirmed: holding -> treasury; reverted: holding -> where it came from. */
function ledgerEntryOf(payout: Payout, receipt: MinedReceipt): LedgerEntry {
  return {
    kind: receipt.success ? 'payout_sent' : 'payout_failed',
    payoutId: payout.id,
    depositId: payout.depositId,
    memo: receipt.hash,
    postings: transfer(
      payoutHolding(payout),
      receipt.success ? OPERATOR.usdTreasury : payoutReturn(payout),
      dec(payout.amount),
    ),
  };
}

/** The withdrawals of booked payouts, locked in id order: COMPLETED, or FAILED on a revert. */
export async function finishMinedWithdrawals(
  tx: EntityManager,
  booked: BookedPayouts,
  now: Date,
): Promise<void> {
  const receiptOfWithdrawal = booked.withdrawals;
  if (receiptOfWithdrawal.size === 0) return;
  const withdrawals = await tx.find(
    Withdrawal,
    { id: { $in: [...receiptOfWithdrawal.keys()] } },
    { lockMode: LockMode.PESSIMISTIC_WRITE, orderBy: { id: 'asc' } },
  );
  for (const withdrawal of withdrawals) {
    const receipt = receiptOfWithdrawal.get(withdrawal.id)!;
    moveWithdrawal(
      withdrawal,
      receipt.success
        ? { to: 'COMPLETED', txHash: receipt.hash }
        : { to: 'FAILED', reason: 'on-chain transfer reverted', txHash: receipt.hash },
      now,
    );
  }
  await tx.flush();
}
