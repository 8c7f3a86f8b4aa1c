import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Config } from '../config';
import type { Payout } from './payout.entity';
import type { ChainGateway, MinedReceipt } from '../adapters/chain/chain-gateway';
import type { PayoutBroadcaster } from './payout-broadcast';
import type { FeeBumper } from './payout-bump';
import { storedTransactions, type StoredTransaction } from './payout-rows';
import type { MinedPayoutBooking } from './payout-ports';

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
    private readonly settler: MinedPayoutBooking,
    private readonly broadcaster: PayoutBroadcaster,
    private readonly bumper: FeeBumper,
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
    // After a reorg the transaction that was mined is the one to mine again, as it was: its
    // hash is what the deposit or withdrawal already shows, so it is resent, never replaced.
    const reorged = payout.reorgedAt
      ? transactions.find((t) => t.hash.toLowerCase() === payout.txHash?.toLowerCase())
      : undefined;
    const latest = reorged ?? transactions[0];
    const now = this.clock.now().getTime();
    if (
      !reorged &&
      now - new Date(latest.created_at).getTime() >= this.config.PAYOUT_STUCK_SECONDS * 1000
    ) {
      await this.bumper.bump(em, payout.id, gateway, latest);
      return 'bumped';
    }
    // Not on every sweep when sweeps are frequent: at most every 5 s.
    const resendAfterMs = Math.max(5_000, this.config.PAYOUT_POLL_MS);
    if (!payout.lastBroadcastAt || now - payout.lastBroadcastAt.getTime() >= resendAfterMs) {
      await this.broadcaster.broadcast(em, payout.id, gateway, latest.raw_tx);
      return 'rebroadcast';
    }
    return 'pending';
  }

  /** Books a mined payout: confirmed (settles its deposit or withdrawal) or reverted. */
  private async finish(em: EntityManager, payoutId: string, receipt: MinedReceipt): Promise<void> {
    await this.settler.settle(em, [{ payoutId, receipt }]);
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
