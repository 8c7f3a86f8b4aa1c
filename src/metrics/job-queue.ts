import type { MikroORM } from '@mikro-orm/postgresql';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock';
import { cachedFor, scrapeQuery } from './scrape-query';

/** Per job name: jobs due and not locked, and when the oldest of them fell due. */
export interface QueueRow {
  name: string;
  depth: number;
  oldestDueAt: Date;
}

/** Reads the queue from Agenda's store; null when the store did not answer. */
export type QueueReader = (now: Date) => Promise<QueueRow[] | null>;

/** Agenda's MongoDB collection (the MongoDB backend's default, which we do not change). */
export const AGENDA_MONGO_COLLECTION = 'agendaJobs';
const MONGO_TIMEOUT_MS = 2_000;

/** Agenda's PostgreSQL store: its `agenda_jobs` table (the backend's schema, its column names). */
export function postgresQueue(orm: MikroORM, log: Logger): QueueReader {
  return async (now) => {
    const rows = await scrapeQuery<{ name: string; depth: string | number; oldest: Date }>(
      orm,
      log,
      'onramp_job_queue',
      `select name, count(*) as depth, min(next_run_at) as oldest
         from agenda_jobs
        where next_run_at <= ? and locked_at is null and disabled = false
        group by name`,
      [now],
    );
    return (
      rows?.map((r) => ({ name: r.name, depth: Number(r.depth), oldestDueAt: r.oldest })) ?? null
    );
  };
}

/**
 * Agenda's MongoDB store: the same count over its jobs collection, whose fields (`name`,
 * `nextRunAt`, `lockedAt`, `disabled`) are Agenda's documented job attributes. One aggregate,
 * bounded by the server (maxTimeMS). `db()` is undefined until Agenda has connected.
 */
export function mongoQueue(db: () => Db | undefined, log: Logger): QueueReader {
  return async (now) => {
    const store = db();
    if (!store) return null;
    try {
      const rows = await store
        .collection(AGENDA_MONGO_COLLECTION)
        .aggregate<{ _id: string; depth: number; oldest: Date }>(
          [
            { $match: { nextRunAt: { $lte: now }, lockedAt: null, disabled: { $ne: true } } },
            { $group: { _id: '$name', depth: { $sum: 1 }, oldest: { $min: '$nextRunAt' } } },
          ],
          { maxTimeMS: MONGO_TIMEOUT_MS },
        )
        .toArray();
      return rows.map((r) => ({ name: r._id, depth: r.depth, oldestDueAt: new Date(r.oldest) }));
    } catch (error) {
      log.warn(
        { err: error, metric: 'onramp_job_queue' },
        'onramp_job_queue skipped: MongoDB unavailable',
      );
      return null;
    }
  };
}

/**
 * `onramp_job_queue_depth{job_name}` and `onramp_job_queue_lag_seconds{job_name}`, from
 * Agenda's store at scrape time (PostgreSQL or MongoDB, whichever Agenda uses): jobs due and
 * not yet locked by any runner, and how long the oldest of them has been due (0 when none).
 * Every defined job is present. The label is `job_name`, not `job`: Prometheus sets `job` on
 * every series to the scrape job.
 */
export function registerJobQueueGauges(
  registry: Registry,
  read: QueueReader,
  options: { jobNames: readonly string[]; clock: Clock; cacheMs: number },
): void {
  const { clock, jobNames } = options;
  const load = cachedFor(options.cacheMs, () => read(clock.now()));
  const fill = async (gauge: Gauge<'job_name'>, pick: (row: QueueRow, now: Date) => number) => {
    const rows = await load();
    gauge.reset();
    if (!rows) return;
    const now = clock.now();
    for (const name of jobNames) gauge.set({ job_name: name }, 0);
    for (const row of rows) gauge.set({ job_name: row.name }, pick(row, now));
  };
  new Gauge({
    name: 'onramp_job_queue_depth',
    help: 'Agenda jobs due and not locked by any runner (from the job store, at scrape time).',
    labelNames: ['job_name'] as const,
    registers: [registry],
    async collect() {
      await fill(this, (row) => row.depth);
    },
  });
  new Gauge({
    name: 'onramp_job_queue_lag_seconds',
    help: 'Seconds the oldest due, unlocked Agenda job has waited (0 when none).',
    labelNames: ['job_name'] as const,
    registers: [registry],
    async collect() {
      await fill(this, (row, now) =>
        Math.max(0, (now.getTime() - new Date(row.oldestDueAt).getTime()) / 1000),
      );
    },
  });
}
