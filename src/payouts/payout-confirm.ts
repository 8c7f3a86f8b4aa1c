import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { Deposit } from '../db/entities/deposit.entity';
import type { Payout } from '../db/entities/payout.entity';
import { retryOnConflict } from '../db/retry';
import type { ChainGateway, MinedReceipt } from '../adapters/chain/chain-gateway';
import { REASON } from '../domain/deposit-reasons';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import { type DepositTransitions, reportSettled, type SettlementObserver } from '../deposits';
import type { LedgerService } from '../ledger';
import type { PayoutBroadcaster } from './payout-broadcast';
import type { FeeBumper } from './payout-bump';
import { payoutHolding, payoutReturn } from './payout-ledger';
import { lockedPayout, storedTransactions, type StoredTransaction } from './payout-rows';
import { movePayout } from './payout-transitions';
import { finishWithdrawal } from './withdrawal-finish';

export type CheckOutcome =
  'confirmed' | 'failed' | 'pending' | 'bumped' | 'rebroadcast' | 'foreign';

/**
 * The confirm stage: a SIGNED payout against the chain. Once one of its transactions has the
 * required confirmations it is booked (CONFIRMED, or FAILED if it reverted) and its deposit
 * SETTLED or its withdrawal COMPLETED, in one transaction; until then it is handed to the
 * bump stage when stuck, or its bytes are resent when the node may have lost them.
 */
export class PayoutConfirmer {
  constructor(
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly bumper: FeeBumper,
    /** Told about each AUTO_WITHDRAW deposit settled by its confirmed payout, after commit. */
    private readonly onSettled?: SettlementObserver,
  ) {}

  /**
   * One SIGNED payout against the chain: settles it once one of its transactions has the
   * required confirmations; otherwise replaces it with higher fees when stuck, or resends
   * its bytes when the node may have lost them.
   */
  async check(
    em: EntityManager,
    payout: Payout,
    gateway: ChainGateway,
    chainState: { head: bigint; minedNonce: number },
  ): Promise<CheckOutcome> {
    const transactions = await storedTransactions(em, payout.id);
    if (Number(payout.nonce) < chainState.minedNonce) {
      const receipt = await firstReceipt(gateway, transactions);
      if (!receipt) {
        // The nonce is used, but by none of our transactions: someone else spent from the
        // hot wallet. Our bytes can never be mined now; an operator must look.
        return 'foreign';
      }
      if (chainState.head - receipt.blockNumber + 1n < BigInt(gateway.confirmations)) {
        return 'pending';
      }
      await this.finish(em, payout.id, receipt);
      return receipt.success ? 'confirmed' : 'failed';
    }
    const latest = transactions[0];
    const now = this.clock.now().getTime();
    if (now - new Date(latest.created_at).getTime() >= this.config.PAYOUT_STUCK_SECONDS * 1000) {
      await this.bumper.bump(em, payout.id, gateway, latest);
      return 'bumped';
    }
    const resendAfterMs = Math.max(5_000, this.config.PAYOUT_POLL_MS * 5);
    if (!payout.lastBroadcastAt || now - payout.lastBroadcastAt.getTime() >= resendAfterMs) {
      await this.broadcaster.broadcast(em, payout.id, gateway, latest.raw_tx);
      return 'rebroadcast';
    }
    return 'pending';
  }

  /** Books a mined payout: confirmed (settles its deposit or withdrawal) or reverted. */
  private async finish(em: EntityManager, payoutId: string, receipt: MinedReceipt): Promise<void> {
    const settled: { deposit?: Deposit } = {};
    await retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        settled.deposit = undefined;
        const payout = await lockedPayout(tx, payoutId);
        if (!payout || payout.status !== 'SIGNED') return;
        const now = this.clock.now();
        movePayout(
          payout,
          {
            to: receipt.success ? 'CONFIRMED' : 'FAILED',
            txHash: receipt.hash,
            blockNumber: receipt.blockNumber,
          },
          now,
        );
        await tx.flush();
        await this.ledger.post(tx, {
          kind: receipt.success ? 'payout_sent' : 'payout_failed',
          payoutId: payout.id,
          depositId: payout.depositId,
          memo: receipt.hash,
          postings: transfer(
            payoutHolding(payout),
            receipt.success ? OPERATOR.usdTreasury : payoutReturn(payout),
            dec(payout.amount),
          ),
        });
        if (payout.depositId) {
          settled.deposit = await this.settleDeposit(tx, payout.depositId, receipt);
        } else {
          await finishWithdrawal(
            tx,
            payout,
            receipt.success
              ? { to: 'COMPLETED', txHash: receipt.hash }
              : { to: 'FAILED', reason: 'on-chain transfer reverted', txHash: receipt.hash },
            this.clock.now(),
          );
        }
      }),
    );
    if (settled.deposit) reportSettled(this.onSettled, settled.deposit);
  }

  /** The deposit of a mined payout: SETTLED (returned, to report after commit) or FLAGGED. */
  private async settleDeposit(
    tx: EntityManager,
    depositId: string,
    receipt: MinedReceipt,
  ): Promise<Deposit | undefined> {
    const deposit = await tx.findOneOrFail(
      Deposit,
      { id: depositId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    // A deposit FLAGGED meanwhile (bank reversal during settlement) keeps its status;
    // it still learns the hash of the transfer that went out.
    deposit.txHash = receipt.hash;
    if (deposit.status !== 'PENDING_WITHDRAWAL') {
      await tx.flush();
      return undefined;
    }
    await this.transitions.moveTo(
      tx,
      deposit,
      receipt.success ? 'SETTLED' : 'FLAGGED',
      receipt.success ? {} : { reason: REASON.payoutFailed },
    );
    return receipt.success ? deposit : undefined;
  }
}

async function firstReceipt(
  gateway: ChainGateway,
  transactions: StoredTransaction[],
): Promise<MinedReceipt | null> {
  for (const transaction of transactions) {
    const receipt = await gateway.receipt(transaction.hash);
    if (receipt) return receipt;
  }
  return null;
}
