import type { TransitionTable } from './transitions';

export const WEBHOOK_DELIVERY_STATUSES = ['PENDING', 'SUCCEEDED', 'FAILED'] as const;
export type WebhookDeliveryStatus = (typeof WEBHOOK_DELIVERY_STATUSES)[number];

/**
 * The webhook delivery lifecycle as data. A delivery (the outbox trigger's, or a replay) starts
 * PENDING and stays PENDING while retries are left: an attempt that is retried records itself
 * and keeps it PENDING, which is the one move to the same status. It ends SUCCEEDED (a 2xx),
 * or FAILED (retries used up, a 410, no endpoint, its endpoint deleted); a replay is a new
 * delivery, so neither end moves again.
 */
export const WEBHOOK_DELIVERY_LIFECYCLE: TransitionTable<WebhookDeliveryStatus> = {
  subject: 'webhook delivery',
  initial: ['PENDING'],
  moves: {
    PENDING: ['PENDING', 'SUCCEEDED', 'FAILED'],
    SUCCEEDED: [],
    FAILED: [],
  },
};
