import { z } from 'zod';
import { positiveInt } from './config-fields';

/** Webhook delivery settings (docs/api.md, "Webhooks"), spread into `configSchema`. */
export const webhookConfigFields = {
  /** A webhook attempt that has not answered after this long counts as failed (docs/api.md, "Webhooks": 15 s). */
  WEBHOOK_TIMEOUT_MS: positiveInt(15_000),
  /** How often a job runner looks for webhook retries that are due. */
  WEBHOOK_POLL_MS: positiveInt(1000),
  /** Webhook attempts one job runner keeps in flight at once, over all endpoints. */
  WEBHOOK_CONCURRENCY: positiveInt(200),
  /** Of those, at most this many to one merchant's endpoint: a slow one cannot hold up others. */
  WEBHOOK_ENDPOINT_CONCURRENCY: positiveInt(25),
  /**
   * `true` lets webhook URLs point at loopback, private, link-local and other non-public
   * addresses (local receivers; `npm start` sets it). Off, they are refused in every
   * environment, when set and on every attempt.
   */
  WEBHOOK_ALLOW_PRIVATE: z
    .enum(['true', 'false'], { message: 'must be true or false' })
    .default('false')
    .transform((value) => value === 'true'),
  /**
   * Test pings and replays one merchant may ask for per clock hour, together (429
   * `rate_limited` past it): each makes the job runner send to a URL the merchant chose.
   */
  WEBHOOK_TEST_AND_REPLAY_PER_HOUR: positiveInt(100),
  /** After a secret rotation the previous secret also signs for this long. */
  WEBHOOK_SECRET_ROTATION_SECONDS: positiveInt(86_400),
};
