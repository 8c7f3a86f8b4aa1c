import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { Batcher, type Settled } from '../lib/batching';

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * Adds n hits to a bucket's window and returns its new total. The commit does not wait for
 * the WAL flush (`synchronous_commit` off for this statement's transaction only, through
 * `set_config(..., true)`): the count is visible to every gateway at once all the same, and a
 * PostgreSQL crash can lose at most the last few hundred milliseconds of counts, which a rate
 * limit can afford. Waiting for the flush cost each request a disk flush (p99 several ms).
 */
const COUNT_SQL = `insert into rate_limit_windows (bucket, window_start, hits)
  select ?::text, ?::timestamptz, ?::integer
    from (select set_config('synchronous_commit', 'off', true)) as async_commit
  on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + excluded.hits
  returning hits`;

/** One request to count: its bucket, its window, and when it came (for its ttl). */
interface Hit {
  key: string;
  windowStart: number;
  now: number;
}

/**
 * Fixed one-minute windows counted in PostgreSQL, so every gateway instance shares the same
 * counters. Old windows are pruned by the job runner.
 *
 * Every request is counted before it goes on, and each gets its own count (1, 2, 3, ...
 * across all gateways), exactly as with one upsert per request. But the upserts of one bucket
 * all update the same row, so PostgreSQL runs them one after another, each holding the row
 * lock until it commits: a bounded number per second, whatever the pool size.
 * So each gateway keeps at most one upsert per bucket and window in flight; the requests that
 * arrive meanwhile wait for it and are then counted together by the next one (`hits + n`),
 * and share out the n counts it returns. One request alone still costs exactly one upsert.
 */
export class PostgresRateLimitStore {
  /** Per bucket and window: one upsert in flight, the hits arriving meanwhile in the next. */
  private readonly counting = new Batcher<Hit, { current: number; ttl: number }>({
    run: (hits) => this.count(hits),
  });

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    private readonly timeWindowMs: number,
  ) {}

  incr(key: string, cb: IncrCallback): void {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % this.timeWindowMs);
    this.counting.submit({ key, windowStart, now }, `${windowStart} ${key}`).then(
      (result) => cb(null, result),
      (error: Error) => cb(error),
    );
  }

  /** Counts a batch of one bucket and window with one upsert; each hit gets its own count. */
  private async count(hits: Hit[]): Promise<Array<Settled<{ current: number; ttl: number }>>> {
    const { key, windowStart } = hits[0];
    const n = hits.length;
    const rows = await this.orm.em
      .getConnection()
      .execute<{ hits: number }[]>(COUNT_SQL, [key, new Date(windowStart), n]);
    const last = rows[0].hits;
    const end = windowStart + this.timeWindowMs;
    return hits.map((hit, i) => ({ value: { current: last - n + 1 + i, ttl: end - hit.now } }));
  }

  read(key: string, cb: IncrCallback): void {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % this.timeWindowMs);
    this.orm.em
      .getConnection()
      .execute<{ hits: number }[]>(
        'select hits from rate_limit_windows where bucket = ? and window_start = ?',
        [key, new Date(windowStart)],
      )
      .then((rows) =>
        cb(null, { current: rows[0]?.hits ?? 0, ttl: windowStart + this.timeWindowMs - now }),
      )
      .catch((error: Error) => cb(error));
  }

  child(): PostgresRateLimitStore {
    return this;
  }
}

/** One store per process: API keys (`key:`, `onramp:`) and addresses (`ip:`) count in it. */
export function createRateLimitStore(orm: MikroORM, clock: Clock): PostgresRateLimitStore {
  return new PostgresRateLimitStore(orm, clock, 60_000);
}

/** The per-key limit; unauthenticated requests are limited per address (address-limit.ts). */
export async function registerRateLimit(
  app: FastifyInstance,
  options: { store: PostgresRateLimitStore; perMinute: number },
): Promise<void> {
  const { store } = options;
  await app.register(rateLimit, {
    global: true,
    // After authentication (onRequest) and before the body is read.
    hook: 'preParsing',
    max: options.perMinute,
    timeWindow: 60_000,
    enableDraftSpec: true,
    skipOnError: false,
    store: function StoreFactory() {
      return store;
    } as unknown as never,
    keyGenerator: (request) => {
      const principal = request.principal;
      if (principal?.kind === 'secret_key') return `key:${principal.keyId}`;
      return principal ? `onramp:${principal.onrampId}` : 'anonymous';
    },
    allowList: (request) => request.principal === undefined,
    errorResponseBuilder: (_request, context) =>
      Object.assign(
        new DomainError(
          ErrorCode.RateLimited,
          `Rate limit of ${context.max} requests per minute exceeded; retry in ${context.after}`,
        ),
        { statusCode: 429 },
      ),
  });
}
