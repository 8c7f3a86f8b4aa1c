import { Counter, Histogram, type Registry } from 'prom-client';
import type { AttemptOutcome } from '../webhooks';

export const WEBHOOK_OUTCOMES = [
  'succeeded',
  'retry',
  'failed',
  'endpoint_gone',
  'no_endpoint',
  'lease_lost',
] as const satisfies ReadonlyArray<AttemptOutcome['kind']>;

/** Counts one webhook attempt by outcome and times it (send and record). */
import type { WebhookAttemptObserver } from '../webhooks';

export type { WebhookAttemptObserver };

/**
 * `onramp_webhook_attempts_total{outcome}` and `onramp_webhook_attempt_duration_seconds{outcome}`.
 * `retry` is an attempt that failed and is scheduled again, `failed` one that ran out of
 * retries; `no_endpoint` a delivery closed without sending, `lease_lost` an attempt another
 * runner took over (nothing recorded).
 */
export function registerWebhookMetrics(registry: Registry): WebhookAttemptObserver {
  const attempts = new Counter({
    name: 'onramp_webhook_attempts_total',
    help: 'Webhook delivery attempts made by this job runner, by outcome.',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: 'onramp_webhook_attempt_duration_seconds',
    help: 'Webhook delivery attempts: seconds to send and record, by outcome.',
    labelNames: ['outcome'] as const,
    buckets: [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30],
    registers: [registry],
  });
  // Every outcome is exported from the start (0), so rate() works before the first one.
  for (const outcome of WEBHOOK_OUTCOMES) attempts.inc({ outcome }, 0);
  return (outcome, seconds) => {
    attempts.inc({ outcome });
    duration.observe({ outcome }, seconds);
  };
}
