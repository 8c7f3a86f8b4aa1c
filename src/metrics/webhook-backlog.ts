import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock';
import { WEBHOOK_BACKLOG_SQL } from '../webhooks';
import { cachedFor, scrapeQuery } from './scrape-query';

interface BacklogRow {
  pending: string | number;
  due: string | number;
  oldest: Date | string | null;
}

/**
 * The webhook backlog: `onramp_webhook_backlog{state}` (`pending`: every delivery not yet
 * delivered nor given up, retries waiting for their time included; `due`: those whose next
 * attempt is due now, i.e. waiting for a runner) and `onramp_webhook_backlog_oldest_seconds`,
 * the age of the oldest pending delivery (0 when none; NaN when the database did not answer). Every runner reports the same
 * numbers (one database): aggregate across runners with max(), not sum().
 */
export function registerWebhookBacklogGauges(
  registry: Registry,
  orm: MikroORM,
  log: Logger,
  clock: Clock,
  cacheMs: number,
): void {
  const load = cachedFor(cacheMs, async () => {
    const rows = await scrapeQuery<BacklogRow>(
      orm,
      log,
      'onramp_webhook_backlog',
      WEBHOOK_BACKLOG_SQL,
      [clock.now()],
    );
    return rows?.[0] ?? null;
  });
  new Gauge({
    name: 'onramp_webhook_backlog',
    help: 'Webhook deliveries pending (state="pending"), and those of them due now (state="due").',
    labelNames: ['state'] as const,
    registers: [registry],
    async collect() {
      const row = await load();
      this.reset();
      if (!row) return;
      this.set({ state: 'pending' }, Number(row.pending));
      this.set({ state: 'due' }, Number(row.due));
    },
  });
  new Gauge({
    name: 'onramp_webhook_backlog_oldest_seconds',
    help: 'Age of the oldest pending webhook delivery (0 when none).',
    registers: [registry],
    async collect() {
      const row = await load();
      // Unlabelled, so never absent: NaN says "not known" (the database did not answer).
      if (!row) return this.set(NaN);
      const oldest = row.oldest === null ? null : new Date(row.oldest).getTime();
      this.set(oldest === null ? 0 : Math.max(0, (clock.now().getTime() - oldest) / 1000));
    },
  });
}
