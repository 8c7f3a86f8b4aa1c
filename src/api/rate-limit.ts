import type { FastifyInstance, FastifyReply } from 'fastify';
import rateLimit, { type FastifyRateLimitStoreCtor } from '@fastify/rate-limit';
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

  /** The plugin's per-route store; no route sets its own limit, so every route shares this one. */
  child(): PostgresRateLimitStore {
    return this;
  }
}

/** One store per process: API keys (`key:`, `onramp:`) and addresses (`ip:`) count in it. */
export function createRateLimitStore(orm: MikroORM, clock: Clock): PostgresRateLimitStore {
  return new PostgresRateLimitStore(orm, clock, 60_000);
}

/**
 * The wait in the 429 message, worded as @fastify/rate-limit words it (`@lukeed/ms`'s long
 * form) for the 1-60 s a window can have left: "1 second", "42 seconds", "1 minute". Ours, so
 * the plugin's 429 and a counted 403's 429 (`countKeyRefusal`) read alike from one place.
 */
export function retryInWords(seconds: number): string {
  if (seconds >= 60) return '1 minute';
  return seconds === 1 ? '1 second' : `${seconds} seconds`;
}

/** The bucket a request counts in: its key's, or its onramp's for a client secret. */
const bucketOf = (principal: Principal): string =>
  principal.kind === 'secret_key' ? `key:${principal.keyId}` : `onramp:${principal.onrampId}`;

/**
 * The plugin constructs its store from the class it is given (`new store(settings)`); this
 * one hands it the process's shared store, so the per-address limit counts in the same one.
 */
const sharedStore = (store: PostgresRateLimitStore): FastifyRateLimitStoreCtor =>
  function SharedStore() {
    return store;
  } as unknown as FastifyRateLimitStoreCtor;

/**
 * The per-key limit, by @fastify/rate-limit; unauthenticated requests are limited per address
 * (address-limit.ts). After authentication (onRequest) and before the body is read
 * (preParsing), every request with a principal is counted; the answer carries
 * `RateLimit-Limit`, `RateLimit-Remaining` and `RateLimit-Reset` (API.md, the draft names),
 * and one past the limit is refused with 429 and `Retry-After`. Every route registered after
 * this is limited (the plugin adds its hook to each route as it is added).
 *
 * Issue 23 had replaced the plugin with a hand-written hook; issue 34 measured both in one run
 * and brought the plugin back (docs/decisions.md, "Rate limiting").
 */
export async function registerRateLimit(
  app: FastifyInstance,
  options: { store: PostgresRateLimitStore; perMinute: number },
): Promise<void> {
  await app.register(rateLimit, {
    global: true,
    hook: 'preParsing',
    max: options.perMinute,
    timeWindow: 60_000,
    enableDraftSpec: true,
    // A count the store cannot take fails the request (the limit is not skipped).
    skipOnError: false,
    store: sharedStore(options.store),
    // Asked before the allow list; 'anonymous' is never counted (allowed below).
    keyGenerator: (request) => (request.principal ? bucketOf(request.principal) : 'anonymous'),
    // Public routes, the dashboard's pages and operator routes: no merchant principal.
    allowList: (request) => request.principal === undefined,
    errorResponseBuilder: (_request, context) =>
      limitError(context.max, Math.ceil(context.ttl / 1000)),
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
