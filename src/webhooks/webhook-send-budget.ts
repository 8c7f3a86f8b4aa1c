import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';

const HOUR_MS = 60 * 60 * 1000;

/** A merchant's test and replay sends are spent for this hour: 429 with `Retry-After`. */
export class WebhookSendsLimited extends DomainError {
  constructor(
    readonly limit: number,
    readonly retryAfterSeconds: number,
  ) {
    super(
      ErrorCode.RateLimited,
      `At most ${limit} webhook test and replay sends per hour; retry in ${retryAfterSeconds} seconds`,
    );
  }
}

/**
 * What a merchant may make the job runner send on demand: test pings and replays, together at
 * most `perHour` per merchant in each clock hour (`WEBHOOK_TEST_AND_REPLAY_PER_HOUR`). Without
 * it a leaked key makes the runner send as many requests as it asks for, to any URL it sets.
 * Counted in the shared rate-limit windows (`rate_limit_windows`, every gateway adds to the
 * same count), before anything is written: a send refused for another reason still counts.
 * The operator's replays are not counted.
 */
/** Adds hits to a shared window and answers its count (the system module's rate windows). */
export type WindowCounter = (
  em: EntityManager,
  key: string,
  windowStart: Date,
  hits: number,
) => Promise<number>;

export class WebhookSendBudget {
  constructor(
    private readonly clock: Clock,
    readonly perHour: number,
    private readonly addRateLimitHits: WindowCounter,
  ) {}

  /** Counts one send of the merchant's; throws WebhookSendsLimited past the budget. */
  async spend(em: EntityManager, merchantId: string): Promise<void> {
    const now = this.clock.now().getTime();
    const windowStart = now - (now % HOUR_MS);
    const spent = await this.addRateLimitHits(
      em,
      `webhook-sends:${merchantId}`,
      new Date(windowStart),
      1,
    );
    if (spent <= this.perHour) return;
    const left = Math.max(1, Math.ceil((windowStart + HOUR_MS - now) / 1000));
    throw new WebhookSendsLimited(this.perHour, left);
  }
}
