import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Payout } from './payout.entity';
import { Withdrawal } from './withdrawal.entity';
import { retryOnConflict } from '../db/retry';
import type { MinedReceipt } from '../adapters/chain/chain-gateway';
import { REASON } from '../domain/deposit-reasons';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import {
  type BatchMove,
  type DepositTransitions,
  lockPaidOut,
  type PaidOutDeposit,
  reportSettled,
  type SettlementObserver,
} from '../deposits';
import type { LedgerEntry, LedgerService } from '../ledger';
import { payoutHolding, payoutReturn } from './payout-ledger';
import { lockPayouts, savePayouts } from './payout-store';
import { movePayout, moveWithdrawal } from './payout-transitions';

/** A payout whose transaction is mined with enough confirmations, and that transaction's receipt. */
export interface MinedPayout {
  payoutId: string;
  receipt: MinedReceipt;
}

/**
 * Books mined payouts, any number in ONE transaction (a block's worth from the block follower,
 * one from the sweep): each CONFIRMED (or FAILED if its transaction reverted), its ledger
 * entry, and its deposit SETTLED (FLAGGED on a revert) or its withdrawal COMPLETED (FAILED).
 * Set-based: one locking read and one write per table, one ledger statement for the lot.
 * A payout no longer SIGNED when locked was booked by someone else (another runner's
 * follower, or the sweep) and is skipped, so any number of callers may meet the same block.
 */
export class PayoutSettler {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    /** Told about each AUTO_WITHDRAW deposit settled by its confirmed payout, after commit. */
    private readonly onSettled?: SettlementObserver,
  ) {}

  /** Returns how many payouts this call booked. */
  async settle(em: EntityManager, mined: MinedPayout[]): Promise<number> {
    if (mined.length === 0) return 0;
    const receiptOf = new Map(mined.map((m) => [m.payoutId, m.receipt]));
    let booked = 0;
    let settled: PaidOutDeposit[] = [];
    await retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        settled = [];
        // Locked in id order, then their deposits in id order: two followers settling the
        // same block wait for each other instead of deadlocking. A row moved meanwhile no
        // longer matches once its lock is granted (PostgreSQL rechecks the condition).
        const payouts = await lockPayouts(tx, [...receiptOf.keys()], {
          order: 'id',
          status: 'SIGNED',
        });
        booked = payouts.length;
        if (payouts.length === 0) return;
        const now = this.clock.now();
        for (const payout of payouts) {
          const receipt = receiptOf.get(payout.id)!;
          movePayout(
            payout,
            {
              to: receipt.success ? 'CONFIRMED' : 'FAILED',
              txHash: receipt.hash,
              blockNumber: receipt.blockNumber,
            },
            now,
          );
        }
        await savePayouts(tx, payouts);
        const entries = payouts.map((p) => ledgerEntryOf(p, receiptOf.get(p.id)!));
        const moves = await this.lockedDepositMoves(tx, payouts, receiptOf);
        await finishWithdrawals(tx, payouts, receiptOf, now);
        // The ledger last, in one statement (with the deposits' holding entries, if any):
        // a merchant entry locks the balance row until commit.
        if (moves.length > 0) await this.transitions.moveAllTo(tx, moves, entries);
        else await this.ledger.postAll(tx, entries);
        settled = moves.filter((m) => m.to === 'SETTLED').map((m) => m.deposit);
      }),
    );
    for (const deposit of settled) reportSettled(this.onSettled, deposit);
    return booked;
  }

  /**
   * The deposits of these payouts, locked; each learns its transfer's hash (a deposit FLAGGED
   * meanwhile, by a bank reversal during settlement, keeps its status). Returns the moves of
   * those still PENDING_WITHDRAWAL: SETTLED, or FLAGGED if the transfer reverted.
   */
  private async lockedDepositMoves(
    tx: EntityManager,
    payouts: Payout[],
    receiptOf: Map<string, MinedReceipt>,
  ): Promise<Array<BatchMove & { deposit: PaidOutDeposit }>> {
    const receiptOfDeposit = new Map(
      payouts.filter((p) => p.depositId).map((p) => [p.depositId!, receiptOf.get(p.id)!]),
    );
    if (receiptOfDeposit.size === 0) return [];
    const deposits = await lockPaidOut(
      tx,
      new Map([...receiptOfDeposit].map(([id, receipt]) => [id, receipt.hash])),
    );
    return deposits
      .filter((d) => d.status === 'PENDING_WITHDRAWAL')
      .map((d) => {
        const success = receiptOfDeposit.get(d.id)!.success;
        return {
          deposit: d,
          to: success ? 'SETTLED' : 'FLAGGED',
          options: success ? {} : { reason: REASON.payoutFailed },
        };
      });
  }
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

/** The withdrawals of these payouts, locked in id order: COMPLETED, or FAILED on a revert. */
async function finishWithdrawals(
  tx: EntityManager,
  payouts: Payout[],
  receiptOf: Map<string, MinedReceipt>,
  now: Date,
): Promise<void> {
  const receiptOfWithdrawal = new Map(
    payouts.filter((p) => p.withdrawalId).map((p) => [p.withdrawalId!, receiptOf.get(p.id)!]),
  );
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
