import {
  WEBHOOK_DELIVERY_LIFECYCLE,
  type WebhookDeliveryStatus,
} from '../domain/webhook-delivery-status';
import { sqlMove, type SqlMove, type SqlTarget } from '../domain/transitions';

/**
 * The one place a webhook delivery's status is written. Deliveries are rows of statements (the
 * outbox trigger inserts them, the runner records attempts many at once), so the move is SQL
 * from WEBHOOK_DELIVERY_LIFECYCLE: a new delivery's first status (`stored` null, checked
 * against the initial ones), or an UPDATE's SET item and the condition on the stored status
 * (`stored`: its column) that keeps the update to rows allowed to move there. `to` may be a
 * column of each row's own target (a batch of attempts' outcomes).
 */
export function moveWebhookDelivery(
  to: SqlTarget<WebhookDeliveryStatus>,
  stored: string | null = 'status',
): SqlMove {
  return sqlMove(WEBHOOK_DELIVERY_LIFECYCLE, stored, to);
}
