import { Entity, PrimaryKey, Property } from '@mikro-orm/core';

/**
 * A merchant's webhook endpoint (one per merchant). `secret` signs every delivery; after a
 * rotation `previousSecret` signs too until `previousSecretExpiresAt`, so receivers can switch
 * without missing a delivery. A 410 answer disables the endpoint; setting the URL again
 * enables it.
 */
@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpoint {
  @PrimaryKey({ type: 'text' })
  merchantId!: string;

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
