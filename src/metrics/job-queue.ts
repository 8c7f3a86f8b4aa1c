import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { scrapeQuery, sharedPerScrape } from './scrape-query';

interface QueueRow {
  name: string;
  depth: string | number;
  lag: string | number;
}

/**
 * `onramp_job_queue_depth{job_name}` and `onramp_job_queue_lag_seconds{job_name}`, from
 * Agenda's PostgreSQL table at scrape time: jobs due and not yet locked by any runner, and how
 * long the oldest of them has been due (0 when none). Every defined job is present. The label
 * is `job_name`, not `job`: Prometheus sets `job` on every series to the scrape job.
 */
export function registerJobQueueGauges(
  registry: Registry,
  orm: MikroORM,
  log: Logger,
  jobNames: readonly string[],
): void {
  const load = sharedPerScrape(() =>
    scrapeQuery<QueueRow>(
      orm,
      log,
      'onramp_job_queue',
      `select name, count(*) as depth,
              greatest(0, extract(epoch from now() - min(next_run_at)))::float8 as lag
         from agenda_jobs
        where next_run_at <= now() and locked_at is null and disabled = false
        group by name`,
    ),
  );
  const fill = async (gauge: Gauge<'job_name'>, pick: (row: QueueRow) => number) => {
    const rows = await load();
    gauge.reset();
    if (!rows) return;
    for (const name of jobNames) gauge.set({ job_name: name }, 0);
    for (const row of rows) gauge.set({ job_name: row.name }, pick(row));
  };
  new Gauge({
    name: 'onramp_job_queue_depth',
    help: 'Agenda jobs due and not locked by any runner (from the database, at scrape time).',
    labelNames: ['job_name'] as const,
    registers: [registry],
    async collect() {
      await fill(this, (row) => Number(row.depth));
    },
  });
  new Gauge({
    name: 'onramp_job_queue_lag_seconds',
    help: 'Seconds the oldest due, unlocked Agenda job has waited (0 when none).',
    labelNames: ['job_name'] as const,
    registers: [registry],
    async collect() {
      await fill(this, (row) => Number(row.lag));
    },
  });
}
