import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { signedPayoutsAmong } from './payout-rows';
import type { MinedPayout } from './payout-ports';

/**
 * Blocks a follower looks back when it starts (or when it fell further behind than WALK_MAX):
 * payouts mined earlier are the sweep's, which checks every SIGNED payout past its grace.
 */
const START_BLOCKS = 5n;
/** The most blocks one round walks; a larger gap restarts from START_BLOCKS below the head. */
const WALK_MAX = 50n;
/** Longest wait between rounds while the node or the database fails. */
const BACKOFF_MAX_MS = 5_000;

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
  ) {}

  start(options: FollowerOptions): void {
    for (const gateway of this.chains.configured()) {
      if (this.followers.has(gateway.chain)) continue;
      const follower = new ChainFollower(gateway, this.settle, options, this.onHead);
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

/** One chain's loop. Never throws out: a failing round is logged and retried after a backoff. */
export class ChainFollower {
  /** The next block to settle; null until the first head is known. */
  private next: bigint | null = null;
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
  ) {}

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
    // Also when the head went back (a node restarted from older state): its new blocks at
    // numbers already walked would otherwise never be read.
    if (this.next === null || ready - this.next >= WALK_MAX || ready < this.next - 1n) {
      if (this.next !== null) {
        this.options.log.warn(
          { chain: this.gateway.chain, from: this.next.toString(), to: ready.toString() },
          'payout block follower lost its place; the sweep covers the blocks skipped',
        );
      }
      this.next = ready - START_BLOCKS + 1n > 0n ? ready - START_BLOCKS + 1n : 0n;
    }
    while (this.next <= ready && !this.stopped) {
      await this.settleBlock(this.next);
      // Only past a block that was settled in full: a failure retries the same block.
      this.next += 1n;
    }
  }

  /** One block: its transactions, the SIGNED payouts among them, their receipts, one booking. */
  private async settleBlock(blockNumber: bigint): Promise<void> {
    const hashes = await this.gateway.blockTransactionHashes(blockNumber);
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
      if (receipt) mined.push({ payoutId: payout_id, receipt });
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
