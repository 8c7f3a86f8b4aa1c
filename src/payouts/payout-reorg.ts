import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { Clock } from '../clock';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { PayoutBroadcaster } from './payout-broadcast';
import { lockPayouts, savePayouts } from './payout-store';
import { movePayout } from './payout-transitions';

/** Where reorg alerts go (the job runner's log): an operator must know a booked payout moved. */
export interface ReorgLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}

/** A booked payout a reorg took back to SIGNED. */
export interface ReorgedPayout {
  payoutId: string;
  depositId: string | null;
  withdrawalId: string | null;
  /** The block it had been booked from, no longer canonical. */
  blockNumber: string;
  blockHash: string;
  txHash: string;
  /** Its transaction is in no canonical block now: its stored bytes were sent again. */
  resent: boolean;
}

interface BookedRow {
  id: string;
  block_number: string;
  block_hash: string;
  tx_hash: Hex;
}

/**
 * Reorgs, for the block follower: payouts booked (CONFIRMED or FAILED) from a block that is no
 * longer canonical go back to SIGNED (PAYOUT_LIFECYCLE allows it), and the transaction that was
 * mined is sent again with the same nonce and bytes if the new chain does not hold it. Their
 * ledger entries and their deposits' and withdrawals' moves stand: a deposit SETTLED from the
 * lost block is never settled twice (booking the payout again posts nothing;
 * `bookMinedPayouts`). With the chain's finality depth a payout is booked only once its block is
 * that deep, so each payout moved here is a reorg deeper than the depth: an operator alert.
 */
export class PayoutReorgs {
  constructor(
    private readonly clock: Clock,
    private readonly broadcaster: PayoutBroadcaster,
  ) {}

  /**
   * Checks payouts booked on the gateway's chain from block `fromBlock` up against the blocks
   * the chain holds now, one node read per distinct block; moves those whose block was
   * replaced. Any number of followers may do this at once: a payout is moved under its lock,
   * only while it still names the lost block.
   */
  async unsettle(
    em: EntityManager,
    gateway: ChainGateway,
    fromBlock: bigint,
    log: ReorgLog,
  ): Promise<ReorgedPayout[]> {
    const booked = await em
      .fork()
      .getConnection()
      .execute<BookedRow[]>(
        `select id, block_number::text, block_hash, tx_hash from payouts
          where chain = ? and status in ('CONFIRMED', 'FAILED') and block_number >= ?
            and block_hash is not null
          order by block_number, id`,
        [gateway.chain, fromBlock.toString()],
      );
    if (booked.length === 0) return [];
    const canonical = new Map<string, string | null>();
    for (const number of new Set(booked.map((b) => b.block_number))) {
      const block = await gateway.block(BigInt(number));
      canonical.set(number, block?.hash.toLowerCase() ?? null);
    }
    const lost = booked.filter((b) => canonical.get(b.block_number) !== b.block_hash.toLowerCase());
    if (lost.length === 0) return [];
    const lostHash = new Map(lost.map((b) => [b.id, b.block_hash]));
    const moved = await em.fork().transactional(async (tx) => {
      const payouts = await lockPayouts(
        tx,
        lost.map((b) => b.id),
        { order: 'id', status: ['CONFIRMED', 'FAILED'] },
      );
      const still = payouts.filter((p) => p.blockHash === lostHash.get(p.id));
      const before = still.map((p) => ({ ...p }));
      const now = this.clock.now();
      for (const payout of still) movePayout(payout, { to: 'SIGNED', reorged: true }, now);
      await savePayouts(tx, still);
      return before;
    });
    const reorged: ReorgedPayout[] = [];
    for (const payout of moved) {
      const hash = payout.txHash as Hex;
      // Often a reorg's new blocks hold the same transaction again: the follower books it there.
      const receipt = await gateway.receipt(hash);
      let resent = false;
      if (!receipt) {
        const raw = await this.storedBytes(em, hash);
        if (raw) {
          await this.broadcaster.broadcast(em, payout.id, gateway, raw);
          resent = true;
        }
      }
      const entry: ReorgedPayout = {
        payoutId: payout.id,
        depositId: payout.depositId,
        withdrawalId: payout.withdrawalId,
        blockNumber: payout.blockNumber!,
        blockHash: payout.blockHash!,
        txHash: hash,
        resent,
      };
      reorged.push(entry);
      log.error(
        {
          alert: 'payout_reorged',
          chain: gateway.chain,
          confirmations: gateway.confirmations,
          ...entry,
        },
        'a payout booked from a block that is no longer canonical waits to be mined again ' +
          '(reorg deeper than the finality depth): its deposit or withdrawal stays as booked',
      );
    }
    return reorged;
  }

  /** The signed bytes of one of our transactions, as stored before it was first broadcast. */
  private async storedBytes(em: EntityManager, hash: Hex): Promise<Hex | null> {
    const [row] = await em
      .fork()
      .getConnection()
      .execute<Array<{ raw_tx: Hex }>>('select raw_tx from payout_transactions where hash = ?', [
        hash,
      ]);
    return row?.raw_tx ?? null;
  }
}
