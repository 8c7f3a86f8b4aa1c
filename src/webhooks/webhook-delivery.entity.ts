import { Entity, PrimaryKey, Property } from '@mikro-orm/core';
import type { WebhookDeliveryStatus } from '../domain/webhook-delivery-status';
export type { WebhookDeliveryStatus };

/**
 * One outbox event owed to one of a merchant's endpoints (the trigger `events_webhook_delivery` writes
 * it with the event), or a replay of one. Attempts are rows of `webhook_attempts`.
 */
@Entity({ tableName: 'webhook_deliveries' })
export class WebhookDelivery {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  eventId!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  /** The endpoint it is owed to (null only for deliveries older than several endpoints). */
  @Property({ type: 'text', nullable: true })
  endpointId!: string | null;

  @Property({ type: 'boolean' })
  replay!: boolean;

  @Property({ type: 'text' })
  status!: WebhookDeliveryStatus;

  @Property({ type: 'integer' })
  attemptCount!: number;

  @Property({ type: 'timestamptz', nullable: true })
  firstAttemptAt!: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  nextAttemptAt!: Date | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  leaseToken!: string | null;

  @Property({ type: 'timestamptz', nullable: true, hidden: true })
  leaseUntil!: Date | null;

  @Property({ type: 'integer', nullable: true })
  lastStatusCode!: number | null;

  @Property({ type: 'text', nullable: true })
  lastError!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
