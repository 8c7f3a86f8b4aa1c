import type { FastifyInstance, FastifyReply } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Principal } from '../context/request-context';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { Batcher, type Settled } from '../lib/batching';
import { addRateLimitHits } from '../system';

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
}

/** One store per process: API keys (`key:`, `onramp:`) and addresses (`ip:`) count in it. */
export function createRateLimitStore(orm: MikroORM, clock: Clock): PostgresRateLimitStore {
  return new PostgresRateLimitStore(orm, clock, 60_000);
}

/**
 * The wait in the 429 message, worded as @fastify/rate-limit worded it (`@lukeed/ms`'s long
 * form) for the 1-60 s a window can have left: "1 second", "42 seconds", "1 minute".
 */
export function retryInWords(seconds: number): string {
  if (seconds >= 60) return '1 minute';
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/** The bucket a request counts in: its key's, or its onramp's for a client secret. */
const bucketOf = (principal: Principal): string =>
  principal.kind === 'secret_key' ? `key:${principal.keyId}` : `onramp:${principal.onrampId}`;

/**
 * The per-key limit; unauthenticated requests are limited per address (address-limit.ts).
 * After authentication (onRequest) and before the body is read (preParsing), every request
 * with a principal is counted; the answer carries `RateLimit-Limit`, `RateLimit-Remaining` and
 * `RateLimit-Reset` (API.md), and one past the limit is refused with 429 and `Retry-After`.
 *
 * This was @fastify/rate-limit with the shared store until issue 23: the same headers, the same
 * refusal and the same counts, without the plugin's promises and awaits on every request (its
 * key generator, allow list and store call each awaited): the hook is a plain callback, and a
 * request waits only for its count.
 */
export function registerRateLimit(
  app: FastifyInstance,
  options: { store: PostgresRateLimitStore; perMinute: number },
): void {
  const { store, perMinute: max } = options;
  app.addHook('preParsing', (request, reply, payload, done) => {
    const principal = request.principal;
    // Public routes, the dashboard's pages and operator routes: no merchant principal.
    if (principal === undefined) return done(null, payload);
    store.incr(bucketOf(principal), (error, result) => {
      if (error || !result) return done(error ?? new Error('the rate-limit store gave no count'));
      const exceeded = answerCount(reply, result, max);
      if (exceeded) return done(exceeded);
      done(null, payload);
    });
  });
}

/**
 * Counts a request its key was refused (403 `ip_not_allowed`, `insufficient_scope`, a client
 * secret's `forbidden`) in the key's own per-minute count, as any request: a key cannot probe
 * scopes or addresses for free. Resolves to the 429 to answer instead once past the limit, or
 * null (answer the 403; `reply`, when given, carries the RateLimit headers either way).
 */
export function countKeyRefusal(
  options: { store: PostgresRateLimitStore; perMinute: number },
  principal: Principal,
  reply?: FastifyReply,
): Promise<DomainError | null> {
  return new Promise((resolve, reject) => {
    options.store.incr(bucketOf(principal), (error, result) => {
      if (error || !result) return reject(error ?? new Error('the rate-limit store gave no count'));
      resolve(
        reply
          ? answerCount(reply, result, options.perMinute)
          : result.current > options.perMinute
            ? limitError(options.perMinute, Math.ceil(result.ttl / 1000))
            : null,
      );
    });
  });
}

/** Sets the RateLimit headers for a count; the 429 (with Retry-After) when it is past `max`. */
function answerCount(
  reply: FastifyReply,
  result: { current: number; ttl: number },
  max: number,
): DomainError | null {
  const reset = Math.ceil(result.ttl / 1000);
  const exceeded = result.current > max;
  reply.header('ratelimit-limit', max);
  reply.header('ratelimit-remaining', exceeded ? 0 : max - result.current);
  reply.header('ratelimit-reset', reset);
  if (!exceeded) return null;
  reply.header('retry-after', reset);
  return limitError(max, reset);
}

const limitError = (max: number, reset: number) =>
  new DomainError(
    ErrorCode.RateLimited,
    `Rate limit of ${max} requests per minute exceeded; retry in ${retryInWords(reset)}`,
  );
