import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { DEPOSITS_BY_STATUS_SQL } from '../deposits';
import { DEPOSIT_STATUSES } from '../domain/deposit-state-machine';
import { scrapeQuery } from './scrape-query';

export interface DepositsGauge {
  /** Counts now (the timer does this every interval); resolves once the gauge holds the result. */
  refresh(): Promise<void>;
  /** Stops the timer. */
  stop(): void;
}

/**
 * `onramp_deposits{status}`: deposits in each status, counted in the database on a timer (every
 * status present, 0 when none). A scrape only reads the last count: counting every deposit per
 * scrape let anyone who can reach `/metrics` hold the pool with parallel scrapes. Left empty
 * while the database does not answer. The same number on every process: aggregate across
 * instances with max(), not sum().
 */
export function registerDepositsGauge(
  registry: Registry,
  orm: MikroORM,
  log: Logger,
  refreshMs: number,
): DepositsGauge {
  const gauge = new Gauge({
    name: 'onramp_deposits',
    help: `Deposits in each status (from the database, counted every ${refreshMs / 1000} s).`,
    labelNames: ['status'] as const,
    registers: [registry],
  });
  let inFlight: Promise<void> | null = null;
  const count = async () => {
    const rows = await scrapeQuery<{ status: string; count: string | number }>(
      orm,
      log,
      'onramp_deposits',
      DEPOSITS_BY_STATUS_SQL,
    );
    gauge.reset();
    if (!rows) return;
    for (const status of DEPOSIT_STATUSES) gauge.set({ status }, 0);
    for (const row of rows) gauge.set({ status: row.status }, Number(row.count));
  };
  // One count at a time: a slow database never stacks them up.
  const refresh = () =>
    (inFlight ??= count().finally(() => {
      inFlight = null;
    }));
  void refresh();
  const timer = setInterval(() => void refresh(), refreshMs);
  timer.unref(); // never what keeps a process alive
  return { refresh, stop: () => clearInterval(timer) };
}
