import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { chainOutageScenario } from '../sandbox/scenario-reads';

/** Each configured chain's last observed health, for the `onramp_chain_healthy` gauge. */
export const CHAIN_HEALTH_SQL = 'select chain, healthy from chain_status';

type Probe = { healthy: true; head: bigint } | { healthy: false; detail: string };

/**
 * How long a healthy answer from the node stands for the chain's health: signing rounds ask
 * several times a second, and the block follower reads the head four times a second anyway
 * (`observe`). A node that stops answering is seen within this long. Measured on the
 * monotonic clock: it bounds how stale a cache is, not a business time (a test's frozen clock
 * must not keep an answer forever).
 */
const FRESH_MS = 1_000;
const monotonicMs = () => performance.now();

/**
 * Whether a chain can take payouts now. A chain is down when its node does not answer (or
 * serves the wrong chain id), when the deployment has not configured it, or, in the sandbox,
 * when the merchant's `chainOutage` scenario names it. The last observation is kept in
 * `chain_status` (with the time the outage began) for operators and metrics.
 */
export class ChainHealthService {
  /** Probes now running, by chain (see `probe`). */
  private readonly probing = new Map<string, Promise<Probe>>();
  /** When each chain's node last answered (monotonic ms). */
  private readonly healthySeen = new Map<string, number>();
  /** When each chain's healthy state was last written to chain_status (monotonic ms). */
  private readonly healthyWritten = new Map<string, number>();

  constructor(
    private readonly clock: Clock,
    private readonly chains: ChainRegistry,
    private readonly sandbox: boolean,
  ) {}

  /** Why payouts on `chain` for this merchant must wait, or null when they may go. */
  async unavailable(em: EntityManager, chain: string, merchantId: string): Promise<string | null> {
    if (this.sandbox && (await this.scenarioOutage(em, chain, merchantId))) {
      return 'sandbox chainOutage scenario';
    }
    const seen = this.healthySeen.get(chain);
    if (seen !== undefined && isFresh(seen, monotonicMs())) return null;
    const probe = await this.probe(em, chain);
    return probe.healthy ? null : probe.detail;
  }

  /**
   * Asks the node for its head and records what it saw. Every payout sent probes first, so
   * under load many asked at once: callers arriving while a probe of the chain runs share
   * its answer (and its one chain_status write) instead of queueing on that row.
   */
  probe(em: EntityManager, chain: string): Promise<Probe> {
    const running = this.probing.get(chain);
    if (running) return running;
    const started = this.probeNow(em, chain).finally(() => this.probing.delete(chain));
    this.probing.set(chain, started);
    return started;
  }

  private async probeNow(em: EntityManager, chain: string): Promise<Probe> {
    const gateway = this.chains.get(chain);
    if (!gateway) return { healthy: false, detail: `${chain} is not configured` };
    try {
      const head = await gateway.head();
      await this.record(em, chain, null, head);
      return { healthy: true, head };
    } catch (error) {
      const detail = await this.record(em, chain, error);
      return { healthy: false, detail };
    }
  }

  /** A head the node just served (the block follower's poll): the chain answers. */
  async observe(em: EntityManager, chain: string, head: bigint): Promise<void> {
    await this.record(em, chain, null, head);
  }

  /**
   * Records an observation: `error` null means healthy. Returns the detail stored. A healthy
   * chain's row is rewritten at most once per FRESH_MS (its checked_at and block are for
   * operators); a failure is always written, and ends the healthy answer's standing at once.
   */
  async record(em: EntityManager, chain: string, error: unknown, head?: bigint): Promise<string> {
    const now = this.clock.now();
    const detail = error === null ? 'ok' : shortError(error);
    if (error === null) {
      const at = monotonicMs();
      if (head !== undefined) this.healthySeen.set(chain, at);
      const written = this.healthyWritten.get(chain);
      if (written !== undefined && isFresh(written, at)) return detail;
      this.healthyWritten.set(chain, at);
    } else {
      this.healthySeen.delete(chain);
      this.healthyWritten.delete(chain);
    }
    await em
      .fork()
      .getConnection()
      .execute(
        `insert into chain_status (chain, healthy, down_since, block_number, detail, checked_at)
         values (?, ?, ?, ?, ?, ?)
         on conflict (chain) do update set
           healthy = excluded.healthy,
           down_since = case when excluded.healthy then null
                             else coalesce(chain_status.down_since, excluded.down_since) end,
           block_number = coalesce(excluded.block_number, chain_status.block_number),
           detail = excluded.detail,
           checked_at = excluded.checked_at`,
        [chain, error === null, error === null ? null : now, head?.toString() ?? null, detail, now],
      );
    return detail;
  }

  private async scenarioOutage(
    em: EntityManager,
    chain: string,
    merchantId: string,
  ): Promise<boolean> {
    return chainOutageScenario(em, merchantId, chain);
  }
}

/** Within FRESH_MS of `at`; a clock moved backwards counts as stale. */
function isFresh(at: number, now: number): boolean {
  return now >= at && now - at < FRESH_MS;
}

function shortError(error: unknown): string {
  const text =
    error instanceof Error
      ? ((error as { shortMessage?: string }).shortMessage ?? error.message)
      : String(error);
  return text.slice(0, 300);
}
