import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { chainOutageScenario } from '../sandbox';

/** Each configured chain's last observed health, for the `onramp_chain_healthy` gauge. */
export const CHAIN_HEALTH_SQL = 'select chain, healthy from chain_status';

type Probe = { healthy: true; head: bigint } | { healthy: false; detail: string };

/**
 * Whether a chain can take payouts now. A chain is down when its node does not answer (or
 * serves the wrong chain id), when the deployment has not configured it, or, in the sandbox,
 * when the merchant's `chainOutage` scenario names it. The last observation is kept in
 * `chain_status` (with the time the outage began) for operators and metrics.
 */
export class ChainHealthService {
  /** Probes now running, by chain (see `probe`). */
  private readonly probing = new Map<string, Promise<Probe>>();

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

  /** Records an observation: `error` null means healthy. Returns the detail stored. */
  async record(em: EntityManager, chain: string, error: unknown, head?: bigint): Promise<string> {
    const now = this.clock.now();
    const detail = error === null ? 'ok' : shortError(error);
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

function shortError(error: unknown): string {
  const text =
    error instanceof Error
      ? ((error as { shortMessage?: string }).shortMessage ?? error.message)
      : String(error);
  return text.slice(0, 300);
}
