import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { Batcher, type Settled } from '../lib/batching';
import { addRateLimitHits, readRateLimitHits } from '../system';

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/** One request to count: its bucket, its window, and when it came (for its ttl). */
interface Hit {
  key: string;
  windowStart: number;
  now: number;
}

/**
 * Fixed one-minute windows counted in PostgreSQL, so every gateway instance shares the same
 * counters (`rate_limit_windows`, the system module's). Old windows are pruned by the job runner.
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
    const last = await addRateLimitHits(this.orm.em, key, new Date(windowStart), n);
    const end = windowStart + this.timeWindowMs;
    return hits.map((hit, i) => ({ value: { current: last - n + 1 + i, ttl: end - hit.now } }));
  }

  read(key: string, cb: IncrCallback): void {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % this.timeWindowMs);
    readRateLimitHits(this.orm.em, key, new Date(windowStart))
      .then((hits) => cb(null, { current: hits, ttl: windowStart + this.timeWindowMs - now }))
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
