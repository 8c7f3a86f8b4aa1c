import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * One of a merchant's webhook endpoints (at most 10; the oldest is "the" endpoint of the
 * single-endpoint operations). It receives the events named in `enabledEvents` (`*`: all).
 * `secret` signs every delivery; after a rotation `previousSecret` signs too until
 * `previousSecretExpiresAt`, so receivers can switch without missing a delivery. A 410 answer
 * disables the endpoint; enabling it (or setting the URL again) enables it.
 */
@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpoint {
  @PrimaryKey({ type: 'text' })
  id!: string;

  @Property({ type: 'text' })
  merchantId!: string;

  @Property({ type: 'text[]' })
  enabledEvents!: string[];

  @Property({ type: 'text', nullable: true })
  description!: string | null;

  @Property({ type: 'text' })
  url!: string;

  @Property({ type: 'text', hidden: true })
  secret!: string;

  @Property({ type: 'text', nullable: true, hidden: true })
  previousSecret!: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  previousSecretExpiresAt!: Date | null;

  @Property({ type: 'boolean' })
  enabled!: boolean;

  @Property({ type: 'text', nullable: true })
  disabledReason!: string | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
