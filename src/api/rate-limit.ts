import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { addRateLimitHits, readRateLimitHits } from '../system';

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

interface Waiter {
  now: number;
  cb: IncrCallback;
}

/** Requests of one bucket and window counted by one upsert. */
interface Batch {
  key: string;
  windowStart: number;
  waiters: Waiter[];
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
  /** Per bucket and window: the batch being written, and the one gathering behind it. */
  private readonly writing = new Map<string, Batch>();
  private readonly gathering = new Map<string, Batch>();

  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    private readonly timeWindowMs: number,
  ) {}

  incr(key: string, cb: IncrCallback): void {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % this.timeWindowMs);
    const id = `${windowStart} ${key}`;
    const waiter = { now, cb };
    if (!this.writing.has(id)) {
      this.write(id, { key, windowStart, waiters: [waiter] });
      return;
    }
    const next = this.gathering.get(id);
    if (next) next.waiters.push(waiter);
    else this.gathering.set(id, { key, windowStart, waiters: [waiter] });
  }

  private write(id: string, batch: Batch): void {
    this.writing.set(id, batch);
    const n = batch.waiters.length;
    addRateLimitHits(this.orm.em, batch.key, new Date(batch.windowStart), n)
      .then(
        (hits) => ({ last: hits, error: null }),
        (error: Error) => ({ last: 0, error }),
      )
      .then(({ last, error }) => {
        // The next batch starts writing before these callbacks run.
        this.writing.delete(id);
        const next = this.gathering.get(id);
        if (next) {
          this.gathering.delete(id);
          this.write(id, next);
        }
        const end = batch.windowStart + this.timeWindowMs;
        batch.waiters.forEach((waiter, i) => {
          if (error) waiter.cb(error);
          else waiter.cb(null, { current: last - n + 1 + i, ttl: end - waiter.now });
        });
      });
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
