import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { DEPOSIT_STATUSES } from '../domain/deposit-state-machine';
import { scrapeQuery } from './scrape-query';

/**
 * `onramp_deposits{status}`: deposits in each status, counted in the database at scrape time
 * (every status present, 0 when none). The same number on every process: aggregate across
 * instances with max(), not sum().
 */
export function registerDepositsGauge(registry: Registry, orm: MikroORM, log: Logger): void {
  new Gauge({
    name: 'onramp_deposits',
    help: 'Deposits in each status (from the database, at scrape time).',
    labelNames: ['status'] as const,
    registers: [registry],
    async collect() {
      const rows = await scrapeQuery<{ status: string; count: string | number }>(
        orm,
        log,
        'onramp_deposits',
        'select status, count(*) as count from deposits group by status',
      );
      this.reset();
      if (!rows) return;
      for (const status of DEPOSIT_STATUSES) this.set({ status }, 0);
      for (const row of rows) this.set({ status: row.status }, Number(row.count));
    },
  });
}
