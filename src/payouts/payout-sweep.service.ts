import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { Payout } from './payout.entity';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { outageOutlasted } from '../domain/payout-rules';
import type { ChainHealth as ChainHealthService } from './chain-health-port';
import type { PayoutBlockFollower } from './payout-block-follower';
import type { PayoutService } from './payout.service';

export interface SweepReport {
  chain: string;
  healthy: boolean;
  signed: number;
  confirmed: number;
  failed: number;
  bumped: number;
  rebroadcast: number;
  cancelled: number;
  /** Nonces used by transactions we did not sign: an operator must look. */
  foreign: string[];
}

/**
 * A PENDING payout this old has missed its immediate trigger (or waits for its chain): the
 * sweep wakes the signing drain for it. Younger ones still have their NOTIFY's round coming.
 */
const STALLED_MS = 10_000;
const BATCH = 500;
/**
 * SIGNED payouts checked at once: receipts are node round trips and bookings are short
 * transactions on distinct rows, so walking them one by one capped confirmations at a few
 * per second per chain. Bounded to stay well inside the database pool.
 */
const CHECK_CONCURRENCY = 4;
/**
 * A sweep starts no new work after this long, so it ends well inside process-payouts' Agenda
 * lock (10 s). Past its lock Agenda would start the next sweep while this one still runs in
 * the background, and overlapping sweeps would pile up on the same rows and connections.
 * Whatever is left is the next sweep's (oldest nonces first).
 */
const SWEEP_BUDGET_MS = 4_000;

/**
 * The payout flow's repair loop, per chain: probes the node, signs payouts whose trigger was
 * lost, cancels those that outlasted an outage, and walks SIGNED payouts to their receipts
 * (confirming, fee-bumping or rebroadcasting); while this process follows the chain's blocks,
 * only those the block follower should have settled by now. The database says what is
 * unfinished.
 */
export class PayoutSweepService {
  constructor(
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly chains: ChainRegistry,
    private readonly health: ChainHealthService,
    private readonly payouts: PayoutService,
    /** Tells whether this process follows a chain's blocks (then fresh payouts are its). */
    private readonly follower?: Pick<PayoutBlockFollower, 'following'>,
  ) {}

  async sweep(em: EntityManager, chain: string): Promise<SweepReport> {
    const report: SweepReport = {
      chain,
      healthy: false,
      signed: 0,
      confirmed: 0,
      failed: 0,
      bumped: 0,
      rebroadcast: 0,
      cancelled: 0,
      foreign: [],
    };
    // Elapsed time, not the service clock: tests move that one by hours between sweeps.
    const deadline = performance.now() + SWEEP_BUDGET_MS;
    const probe = await this.health.probe(em, chain);
    report.healthy = probe.healthy;
    const gateway = this.chains.get(chain);
    // Side by side: signing stalled payouts waits on the hot wallet's nonce lock, which must
    // not hold up confirming the ones already mined (before, a backlog of PENDING payouts
    // kept every sweep from reaching its SIGNED ones until the backlog was gone).
    await Promise.all([
      this.sendStalled(em, chain, probe.healthy, deadline, report),
      probe.healthy && gateway
        ? this.checkInFlight(em, gateway, probe.head, deadline, report)
        : undefined,
    ]);
    return report;
  }

  /**
   * PENDING payouts past STALLED_MS: while the chain is up, the signing drain is woken (it
   * signs all the chain's PENDING payouts in one transaction; waited for until the deadline
   * at most); while it is down, each is cancelled once past the outage maximum.
   */
  private async sendStalled(
    em: EntityManager,
    chain: string,
    healthy: boolean,
    deadline: number,
    report: SweepReport,
  ): Promise<void> {
    const now = this.clock.now();
    const stalled = await em
      .fork()
      .find(
        Payout,
        { chain, status: 'PENDING', createdAt: { $lt: new Date(now.getTime() - STALLED_MS) } },
        { orderBy: { createdAt: 'asc' }, limit: BATCH },
      );
    if (stalled.length === 0) return;
    if (healthy) {
      const totals = await beforeDeadline(this.payouts.signPending(em, chain), deadline);
      report.signed += totals?.signed ?? 0;
      report.cancelled += totals?.cancelled ?? 0;
      return;
    }
    for (const payout of stalled) {
      if (performance.now() >= deadline) return;
      // Nothing is signed while the chain is down; only the outage maximum is enforced.
      if (outageOutlasted(payout.createdAt, now, this.config.CHAIN_OUTAGE_MAX_SECONDS)) {
        if (await this.payouts.cancel(em, payout.id, 'chain outage')) report.cancelled += 1;
      }
    }
  }

  /**
   * SIGNED payouts, oldest nonce first, CHECK_CONCURRENCY at a time, until the deadline. While
   * the block follower follows this chain, only those signed more than PAYOUT_CONFIRM_GRACE_MS
   * ago: the follower settles the rest as their blocks arrive, and the sweep only repairs.
   */
  private async checkInFlight(
    em: EntityManager,
    gateway: ChainGateway,
    head: bigint,
    deadline: number,
    report: SweepReport,
  ): Promise<void> {
    const minedNonce = await gateway.nonce('latest');
    const graceMs = this.follower?.following(gateway.chain)
      ? this.config.PAYOUT_CONFIRM_GRACE_MS
      : 0;
    const signedBefore = new Date(this.clock.now().getTime() - graceMs);
    const inFlight = await em.fork().find(
      Payout,
      {
        chain: gateway.chain,
        status: 'SIGNED',
        ...(graceMs > 0 ? { signedAt: { $lt: signedBefore } } : {}),
      },
      { orderBy: { nonce: 'asc' }, limit: BATCH },
    );
    await eachBounded(inFlight, CHECK_CONCURRENCY, deadline, async (payout) => {
      const outcome = await this.payouts.check(em, payout, gateway, { head, minedNonce });
      if (outcome === 'confirmed') report.confirmed += 1;
      else if (outcome === 'failed') report.failed += 1;
      else if (outcome === 'bumped') report.bumped += 1;
      else if (outcome === 'rebroadcast') report.rebroadcast += 1;
      else if (outcome === 'foreign') report.foreign.push(payout.nonce!);
    });
  }
}

/**
 * Runs `work` over `items` with at most `limit` at a time, taking no new item once `deadline`
 * (a `performance.now()` reading) has passed. The first error is thrown once the running ones have settled.
 */
async function eachBounded<T>(
  items: T[],
  limit: number,
  deadline: number,
  work: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < items.length && performance.now() < deadline) {
      const item = items[next];
      next += 1;
      await work(item);
    }
  };
  const lanes = await Promise.allSettled(
    Array.from({ length: Math.min(limit, items.length) }, lane),
  );
  const failed = lanes.find((l): l is PromiseRejectedResult => l.status === 'rejected');
  if (failed) throw failed.reason;
}

/**
 * The work's result, or undefined once `deadline` (a `performance.now()` reading) passes
 * first: the work goes on (a signing run ends by itself), the sweep does not wait for it.
 */
async function beforeDeadline<T>(work: Promise<T>, deadline: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, Math.max(0, deadline - performance.now()), undefined);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}
