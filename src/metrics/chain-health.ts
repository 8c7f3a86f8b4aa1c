import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { scrapeQuery } from './scrape-query';
import { CHAIN_HEALTH_SQL } from '../system';

/**
 * `onramp_chain_healthy{chain}`: 1 when the last probe of a configured chain (kept in
 * `chain_status` by the payout sweep) found it healthy, else 0 (also before its first probe).
 * Chains the deployment has not configured have no series.
 */
export function registerChainHealthGauge(
  registry: Registry,
  orm: MikroORM,
  log: Logger,
  configuredChains: () => readonly string[],
): void {
  new Gauge({
    name: 'onramp_chain_healthy',
    help: 'Configured chains: 1 if the last probe found the node healthy, else 0.',
    labelNames: ['chain'] as const,
    registers: [registry],
    async collect() {
      const chains = configuredChains();
      this.reset();
      if (chains.length === 0) return;
      const rows = await scrapeQuery<{ chain: string; healthy: boolean }>(
        orm,
        log,
        'onramp_chain_healthy',
        CHAIN_HEALTH_SQL,
      );
      if (!rows) return;
      const healthy = new Map(rows.map((row) => [row.chain, row.healthy]));
      for (const chain of chains) this.set({ chain }, healthy.get(chain) ? 1 : 0);
    },
  });
}
