import type { EntityManager } from '@mikro-orm/postgresql';

/**
 * The shared rate-limit counters (`rate_limit_windows`): fixed windows per bucket, counted in
 * PostgreSQL so every gateway sees the same totals. The gateway's store batches the hits
 * (src/api/rate-limit.ts); the job runner prunes old windows.
 */

/**
 * Adds n hits to a bucket's window and returns its new total. The commit does not wait for
 * the WAL flush (`synchronous_commit` off for this statement's transaction only, through
 * `set_config(..., true)`): the count is visible to every gateway at once all the same, and a
 * PostgreSQL crash can lose at most the last few hundred milliseconds of counts, which a rate
 * limit can afford. Waiting for the flush cost each request a disk flush (p99 several ms).
 */
export async function addRateLimitHits(
  em: EntityManager,
  bucket: string,
  windowStart: Date,
  n: number,
): Promise<number> {
  const rows = await em.getConnection().execute<{ hits: number }[]>(
    `insert into rate_limit_windows (bucket, window_start, hits)
       select ?::text, ?::timestamptz, ?::integer
         from (select set_config('synchronous_commit', 'off', true)) as async_commit
       on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + excluded.hits
       returning hits`,
    [bucket, windowStart, n],
  );
  return rows[0].hits;
}

/** The hits counted so far in a bucket's window (0 if none). */
export async function readRateLimitHits(
  em: EntityManager,
  bucket: string,
  windowStart: Date,
): Promise<number> {
  const rows = await em
    .getConnection()
    .execute<{ hits: number }[]>(
      'select hits from rate_limit_windows where bucket = ? and window_start = ?',
      [bucket, windowStart],
    );
  return rows[0]?.hits ?? 0;
}

/** Deletes the windows that started before `cutoff` (never read again). */
export async function pruneRateLimitWindows(em: EntityManager, cutoff: Date): Promise<void> {
  await em
    .getConnection()
    .execute('delete from rate_limit_windows where window_start < ?', [cutoff]);
}
