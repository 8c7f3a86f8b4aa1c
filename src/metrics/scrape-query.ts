import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { executeInTransaction } from '../db/locks';

/** A scrape never waits longer than this for the database. */
export const SCRAPE_QUERY_TIMEOUT_MS = 2_000;

/**
 * Runs one read for a scrape-time gauge. The database gives up on the statement after the
 * timeout, and so does the scrape (a connection that cannot even be made). Returns null
 * when it failed: the caller leaves its gauge empty, the rest of the scrape still answers.
 */
export async function scrapeQuery<T>(
  orm: MikroORM,
  log: Logger,
  metric: string,
  sql: string,
  params: unknown[] = [],
): Promise<T[] | null> {
  const query = orm.em.fork().transactional(async (tx) => {
    await executeInTransaction(tx, `set local statement_timeout = ${SCRAPE_QUERY_TIMEOUT_MS}`, []);
    return executeInTransaction<T>(tx, sql, params);
  });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within ${SCRAPE_QUERY_TIMEOUT_MS} ms`)),
      SCRAPE_QUERY_TIMEOUT_MS,
    );
    timer.unref();
  });
  try {
    return await Promise.race([query, timeout]);
  } catch (error) {
    query.catch(() => undefined);
    log.warn({ err: error, metric }, `${metric} skipped in this scrape: database unavailable`);
    return null;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Gauges filled from one query share it: prom-client collects every metric of a scrape at
 * once, so the first one starts the query and the others join it.
 */
export function sharedPerScrape<T>(load: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () => {
    inFlight ??= load().finally(() => {
      inFlight = null;
    });
    return inFlight;
  };
}

/**
 * `load` at most once per `ttlMs` (a few seconds): the scrapes in between reuse its last
 * answer, so a scrape storm costs the database one query per gauge per `ttlMs`. A failed load
 * (null) is not kept: the next scrape asks again. Concurrent scrapes share one load.
 */
export function cachedFor<T>(
  ttlMs: number,
  load: () => Promise<T | null>,
): () => Promise<T | null> {
  const shared = sharedPerScrape(load);
  let kept: { at: number; value: T } | null = null;
  return async () => {
    if (kept && performance.now() - kept.at < ttlMs) return kept.value;
    const value = await shared();
    kept = value === null ? null : { at: performance.now(), value };
    return value;
  };
}
