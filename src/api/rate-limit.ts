import type { FastifyInstance } from 'fastify';
import rateLimit from '@fastify/rate-limit';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';

type IncrCallback = (error: Error | null, result?: { current: number; ttl: number }) => void;

/**
 * Fixed one-minute windows counted in PostgreSQL, so every gateway instance shares the same
 * counters. One upsert per request; old windows are pruned by the job runner.
 */
export class PostgresRateLimitStore {
  constructor(
    private readonly orm: MikroORM,
    private readonly clock: Clock,
    private readonly timeWindowMs: number,
  ) {}

  incr(key: string, cb: IncrCallback): void {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % this.timeWindowMs);
    this.orm.em
      .getConnection()
      .execute<{ hits: number }[]>(
        `insert into rate_limit_windows (bucket, window_start, hits) values (?, ?, 1)
         on conflict (bucket, window_start) do update set hits = rate_limit_windows.hits + 1
         returning hits`,
        [key, new Date(windowStart)],
      )
      .then((rows) =>
        cb(null, { current: rows[0].hits, ttl: windowStart + this.timeWindowMs - now }),
      )
      .catch((error: Error) => cb(error));
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

export async function registerRateLimit(
  app: FastifyInstance,
  options: { orm: MikroORM; clock: Clock; perMinute: number },
): Promise<void> {
  const store = new PostgresRateLimitStore(options.orm, options.clock, 60_000);
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
