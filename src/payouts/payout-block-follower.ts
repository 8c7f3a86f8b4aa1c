import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Hex } from 'viem';
import type { ChainBlock, ChainGateway } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { signedPayoutsAmong } from './payout-rows';
import type { MinedPayout } from './payout-ports';
import type { PayoutReorgs } from './payout-reorg';

/**
 * Blocks a follower looks back when it starts (or when it fell further behind than WALK_MAX):
 * payouts mined earlier are the sweep's, which checks every SIGNED payout past its grace.
 */
const START_BLOCKS = 5n;
/** The most blocks one round walks; a larger gap restarts from START_BLOCKS below the head. */
const WALK_MAX = 50n;
/** Longest wait between rounds while the node or the database fails. */
const BACKOFF_MAX_MS = 5_000;
/** Blocks whose hashes a follower keeps (and checks again at start), at least. */
const REORG_WINDOW_MIN = 64n;
/** While no new block is ready, the last block walked is checked at most this often. */
const TIP_CHECK_MS = 1_000;

/** Books a block's mined payouts in one transaction (PayoutService.settleMined). */
export type SettleMined = (em: EntityManager, mined: MinedPayout[]) => Promise<number>;

/**
 * Told each head the node served (ChainHealthService.observe): the follower's polls keep the
 * chain's health fresh, so signing rounds and the sweep need not ask the node again.
 */
export type HeadObserver = (em: EntityManager, chain: string, head: bigint) => Promise<void>;

export interface FollowerOptions {
  pollMs: number;
  openEm: () => EntityManager;
  log: Logger;
}

/**
 * Confirmation by block: per configured chain, polls the node's head every PAYOUT_BLOCK_POLL_MS
 * and walks each new block (with its required confirmations) in order, settling every SIGNED
 * payout whose transaction it holds in one transaction per block. Polling, not viem's
 * `watchBlocks`: over HTTP that is the same `eth_blockNumber` poll, and owning the loop lets a
 * gap be walked block by block, bounded, with our backoff and a clean stop.
 */
export class PayoutBlockFollower {
  private readonly followers = new Map<string, ChainFollower>();

  constructor(
    private readonly chains: ChainRegistry,
    private readonly settle: SettleMined,
    private readonly onHead?: HeadObserver,
    /** Unsettles payouts of blocks a reorg replaced; without it reorgs are only logged. */
    private readonly reorgs?: PayoutReorgs,
  ) {}

  start(options: FollowerOptions): void {
    for (const gateway of this.chains.configured()) {
      if (this.followers.has(gateway.chain)) continue;
      const follower = new ChainFollower(gateway, this.settle, options, this.onHead, this.reorgs);
      this.followers.set(gateway.chain, follower);
      follower.start();
    }
  }

  /** Waits for the block in progress of each chain; no new one is started. */
  async stop(): Promise<void> {
    await Promise.all([...this.followers.values()].map((f) => f.stop()));
    this.followers.clear();
  }

  /**
   * Whether this process follows the chain's blocks now (started, and its last round
   * reached the node): the sweep then leaves fresh SIGNED payouts to it.
   */
  following(chain: string): boolean {
    return this.followers.get(chain)?.caughtUp ?? false;
  }
}

/**
 * One chain's loop. Never throws out: a failing round is logged and retried after a backoff.
 * It keeps the hash of every block it walked (the last REORG_WINDOW): a new block whose parent
 * is not the block walked at the height below, or a last block walked that the node no longer
 * serves, is a reorg. It then walks back to the highest block it still agrees with, has
 * `PayoutReorgs` unsettle the payouts booked above it, and walks on from there.
 */
export class ChainFollower {
  /** The next block to settle; null until the first head is known. */
  private next: bigint | null = null;
  /** Hashes of the blocks walked, by height (lower case). */
  private readonly walked = new Map<bigint, string>();
  private lastTipCheck = 0;
  private readonly window: bigint;
  private timer: NodeJS.Timeout | null = null;
  private round: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;
  caughtUp = false;

  constructor(
    private readonly gateway: ChainGateway,
    private readonly settle: SettleMined,
    private readonly options: FollowerOptions,
    private readonly onHead?: HeadObserver,
    private readonly reorgs?: PayoutReorgs,
  ) {
    const twice = 2n * BigInt(gateway.confirmations);
    this.window = twice > REORG_WINDOW_MIN ? twice : REORG_WINDOW_MIN;
  }

  start(): void {
    this.stopped = false;
    this.schedule(0);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.round;
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.round = this.followOnce().then(
        () => {
          this.failures = 0;
          this.caughtUp = true;
          this.schedule(this.options.pollMs);
        },
        (error: unknown) => {
          this.failures += 1;
          this.caughtUp = false;
          const backoff = Math.min(BACKOFF_MAX_MS, this.options.pollMs * 2 ** this.failures);
          this.options.log.warn(
            { err: error, chain: this.gateway.chain, block: this.next?.toString(), backoff },
            'payout block follower: round failed, retrying',
          );
          this.schedule(backoff);
        },
      );
    }, delayMs);
  }

  /** Settles every block from `next` up to the newest with enough confirmations. */
  async followOnce(): Promise<void> {
    const head = await this.gateway.head();
    await this.onHead?.(this.options.openEm(), this.gateway.chain, head);
    const ready = head - BigInt(this.gateway.confirmations) + 1n;
    if (this.next === null) {
      this.next = ready - START_BLOCKS + 1n > 0n ? ready - START_BLOCKS + 1n : 0n;
      // Blocks booked before this process followed the chain (a restart) are checked once.
      await this.unsettleFrom(head - this.window + 1n);
    } else if (ready < this.next) {
      // Nothing new is ready: the last block walked may still have been replaced (a reorg to
      // the same height, or a node whose head went back).
      await this.checkTip();
    }
    if (ready - this.next >= WALK_MAX || ready < this.next - 1n) {
      this.options.log.warn(
        { chain: this.gateway.chain, from: this.next.toString(), to: ready.toString() },
        'payout block follower lost its place; the sweep covers the blocks skipped',
      );
      this.next = ready - START_BLOCKS + 1n > 0n ? ready - START_BLOCKS + 1n : 0n;
    }
    while (this.next <= ready && !this.stopped) {
      const block = await this.gateway.block(this.next);
      if (!block) return; // the head went back meanwhile: the next round sees it
      const parent = this.walked.get(this.next - 1n);
      if (parent !== undefined && parent !== block.parentHash.toLowerCase()) {
        await this.reorganised(this.next - 1n);
        continue;
      }
      await this.settleBlock(block);
      // Only past a block that was settled in full: a failure retries the same block.
      this.remember(block);
      this.next += 1n;
    }
  }

  private remember(block: ChainBlock): void {
    this.walked.set(block.number, block.hash.toLowerCase());
    this.walked.delete(block.number - this.window);
  }

  /** At most every TIP_CHECK_MS: is the last block walked still the chain's? */
  private async checkTip(): Promise<void> {
    const at = performance.now();
    if (at - this.lastTipCheck < TIP_CHECK_MS || this.next === null) return;
    this.lastTipCheck = at;
    const last = this.next - 1n;
    const seen = this.walked.get(last);
    if (seen === undefined) return;
    const block = await this.gateway.block(last);
    if (block?.hash.toLowerCase() !== seen) await this.reorganised(last);
  }

  /**
   * The block walked at `from` is no longer the chain's: walks back to the highest block
   * walked that still is (the fork point), forgets those above it, unsettles the payouts
   * booked from them, and walks on from the block after the fork point.
   */
  private async reorganised(from: bigint): Promise<void> {
    let height = from;
    while (this.walked.has(height)) {
      const block = await this.gateway.block(height);
      if (block?.hash.toLowerCase() === this.walked.get(height)) break;
      this.walked.delete(height);
      height -= 1n;
    }
    const depth = from - height;
    this.options.log.warn(
      { chain: this.gateway.chain, forkAfter: height.toString(), depth: depth.toString() },
      'chain reorganised: blocks walked are no longer canonical',
    );
    await this.unsettleFrom(height + 1n);
    this.next = height + 1n;
  }

  private async unsettleFrom(fromBlock: bigint): Promise<void> {
    if (!this.reorgs) return;
    await this.reorgs.unsettle(
      this.options.openEm(),
      this.gateway,
      fromBlock > 0n ? fromBlock : 0n,
      this.options.log,
    );
  }

  /** One block: its transactions, the SIGNED payouts among them, their receipts, one booking. */
  private async settleBlock(block: ChainBlock): Promise<void> {
    const blockNumber = block.number;
    const hashes: Hex[] = block.transactions;
    if (hashes.length === 0) return;
    const em = this.options.openEm();
    const ours = await signedPayoutsAmong(em, this.gateway.chain, hashes);
    if (ours.length === 0) return;
    const receipts = await this.gateway.blockReceipts(
      blockNumber,
      ours.map((o) => o.hash),
    );
    const mined: MinedPayout[] = [];
    for (const { hash, payout_id } of ours) {
      const receipt = receipts.get(hash.toLowerCase() as typeof hash);
      // A receipt from another block at this height (a reorg between the two reads) waits.
      if (receipt && receipt.blockHash.toLowerCase() === block.hash.toLowerCase()) {
        mined.push({ payoutId: payout_id, receipt });
      }
    }
    const booked = await this.settle(em, mined);
    if (booked > 0) {
      this.options.log.debug(
        { chain: this.gateway.chain, block: blockNumber.toString(), booked },
        'payouts settled by block',
      );
    }
  }
}
