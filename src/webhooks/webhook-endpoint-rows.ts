import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, ErrorCode } from '../domain/errors';
import { executeInTransaction } from '../db/locks';

/** At most this many endpoints per merchant (422 `limit_exceeded` past it). */
export const MAX_ENDPOINTS_PER_MERCHANT = 10;

export type WebhookEndpointStatus = 'ENABLED' | 'DISABLED';

/** An endpoint as callers see it: its secrets opened (never as stored: they are sealed). */
export interface WebhookEndpointView {
  id: string;
  merchantId: string;
  url: string;
  enabledEvents: string[];
  description: string | null;
  status: WebhookEndpointStatus;
  secret: string;
  previousSecret: string | null;
  previousSecretExpiresAt: Date | null;
  enabled: boolean;
  /** Why it is disabled: the merchant did, or its URL answered 410. */
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

/** A row of `webhook_endpoints` as read, secrets still sealed. */
export type StoredEndpoint = Omit<WebhookEndpointView, 'status'>;

export const ENDPOINT_COLUMNS = `id, merchant_id, url, enabled_events, description, secret,
  previous_secret, previous_secret_expires_at, enabled, disabled_reason, created_at, updated_at`;

/** The merchant's endpoints oldest first: the first is the single-endpoint operations' one. */
export const OLDEST_FIRST = 'order by created_at, id';

export function storedEndpoint(r: Record<string, unknown>): StoredEndpoint {
  const time = (v: unknown) => new Date(v as string | Date);
  return {
    id: r.id as string,
    merchantId: r.merchant_id as string,
    url: r.url as string,
    enabledEvents: r.enabled_events as string[],
    description: (r.description as string | null) ?? null,
    secret: r.secret as string,
    previousSecret: (r.previous_secret as string | null) ?? null,
    previousSecretExpiresAt:
      r.previous_secret_expires_at == null ? null : time(r.previous_secret_expires_at),
    enabled: Boolean(r.enabled),
    disabledReason: (r.disabled_reason as string | null) ?? null,
    createdAt: time(r.created_at),
    updatedAt: time(r.updated_at),
  };
}

export const noEndpoint = () =>
  new DomainError(ErrorCode.NotFound, 'No webhook endpoint is set; call setWebhookEndpoint first');

export const unknownEndpoint = (id: string) =>
  new DomainError(ErrorCode.NotFound, `No webhook endpoint ${id}`);

/**
 * Serializes the creations of one merchant's endpoints (the count and the insert), so two
 * concurrent requests cannot both create the tenth. An advisory lock keyed on the merchant
 * rather than its `merchants` row, which belongs to the merchants module.
 */
export async function lockMerchantEndpoints(tx: EntityManager, merchantId: string): Promise<void> {
  await executeInTransaction(
    tx,
    "select pg_advisory_xact_lock(hashtext('webhook_endpoints'), hashtext(?))",
    [merchantId],
  );
}

export async function countEndpoints(tx: EntityManager, merchantId: string): Promise<number> {
  const [row] = await executeInTransaction<{ n: number }>(
    tx,
    'select count(*)::int as n from webhook_endpoints where merchant_id = ?',
    [merchantId],
  );
  return Number(row.n);
}

export const limitExceeded = () =>
  new DomainError(
    ErrorCode.LimitExceeded,
    `At most ${MAX_ENDPOINTS_PER_MERCHANT} webhook endpoints per merchant; delete one first`,
  );
