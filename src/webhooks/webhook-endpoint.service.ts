import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import { newWebhookSecret } from '../adapters/webhook/webhook-signer';
import type { SecretBox } from '../crypto/secret-box';
import {
  checkedDescription,
  checkedEvents,
  checkedUrl,
  patchAssignments,
  type EndpointInput,
  type EndpointPatch,
  type WebhookEndpointOptions,
} from './webhook-endpoint-input';
import {
  countEndpoints,
  ENDPOINT_COLUMNS,
  limitExceeded,
  lockMerchantEndpoints,
  MAX_ENDPOINTS_PER_MERCHANT,
  noEndpoint,
  OLDEST_FIRST,
  storedEndpoint,
  unknownEndpoint,
  type StoredEndpoint,
  type WebhookEndpointView,
} from './webhook-endpoint-rows';
import { moveWebhookDelivery } from './webhook-delivery-transitions';

export type { WebhookEndpointView } from './webhook-endpoint-rows';
export { noEndpoint } from './webhook-endpoint-rows';
export type {
  EndpointInput,
  EndpointPatch,
  WebhookEndpointOptions,
} from './webhook-endpoint-input';

/** Sealed secrets are bound to their merchant: a sealed value copied to another merchant's row does not open. */
export const webhookSecretContext = (merchantId: string) => `webhook_secret:${merchantId}`;

/**
 * A merchant's webhook endpoints (up to 10): create, read, change, delete, rotate a secret;
 * and the single-endpoint operations, which act on the oldest. Secrets are stored sealed with
 * ENCRYPTION_KEY; plaintext `whsec_` values stored before are read as they are and sealed on
 * the next write (or by `onramp secrets reencrypt`).
 */
export class WebhookEndpointService {
  constructor(
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly options: WebhookEndpointOptions,
  ) {}

  /** Every endpoint of the merchant, oldest first. */
  async list(em: EntityManager, merchantId: string): Promise<WebhookEndpointView[]> {
    const rows = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(
        `select ${ENDPOINT_COLUMNS} from webhook_endpoints where merchant_id = ? ${OLDEST_FIRST}`,
        [merchantId],
      );
    return rows.map((r) => this.view(storedEndpoint(r)));
  }

  /** One of the merchant's endpoints; another merchant's id is unknown (404). */
  async getById(em: EntityManager, merchantId: string, id: string): Promise<WebhookEndpointView> {
    const [row] = await em
      .getConnection()
      .execute<Record<string, unknown>[]>(
        `select ${ENDPOINT_COLUMNS} from webhook_endpoints where id = ? and merchant_id = ?`,
        [id, merchantId],
      );
    if (!row) throw unknownEndpoint(id);
    return this.view(storedEndpoint(row));
  }

  /** The merchant's first (oldest) endpoint: "the" endpoint of the single-endpoint operations. */
  async get(em: EntityManager, merchantId: string): Promise<WebhookEndpointView | null> {
    return (await this.list(em, merchantId))[0] ?? null;
  }

  /** The secrets as stored, in one place for sealing and for opening (the job runner signs). */
  open(merchantId: string, stored: string): string {
    return this.box.open(stored, webhookSecretContext(merchantId));
  }

  async create(
    em: EntityManager,
    merchantId: string,
    input: EndpointInput,
  ): Promise<WebhookEndpointView> {
    const url = await checkedUrl(this.options, input.url);
    const events = checkedEvents(input.enabledEvents);
    const description = checkedDescription(input.description);
    const id = await em.transactional(async (tx) => {
      await lockMerchantEndpoints(tx, merchantId);
      if ((await countEndpoints(tx, merchantId)) >= MAX_ENDPOINTS_PER_MERCHANT) {
        throw limitExceeded();
      }
      return this.insert(tx, merchantId, url, events, description ?? null);
    });
    await this.resealRow(em, id);
    return this.getById(em, merchantId, id);
  }

  async update(
    em: EntityManager,
    merchantId: string,
    id: string,
    patch: EndpointPatch,
  ): Promise<WebhookEndpointView> {
    const { sets, params } = await patchAssignments(patch, (url) => checkedUrl(this.options, url));
    sets.push('updated_at = ?');
    params.push(this.clock.now());
    const rows = await em
      .getConnection()
      .execute<{ id: string }[]>(
        `update webhook_endpoints set ${sets.join(', ')} where id = ? and merchant_id = ? returning id`,
        [...params, id, merchantId],
      );
    if (rows.length === 0) throw unknownEndpoint(id);
    return this.getById(em, merchantId, id);
  }

  /** Deletes an endpoint; its pending deliveries stop (FAILED, no further attempt). */
  async remove(em: EntityManager, merchantId: string, id: string): Promise<void> {
    const now = this.clock.now();
    const failed = moveWebhookDelivery('FAILED');
    await em.transactional(async (tx) => {
      const deleted = await executeInTransaction<{ id: string }>(
        tx,
        'delete from webhook_endpoints where id = ? and merchant_id = ? returning id',
        [id, merchantId],
      );
      if (deleted.length === 0) throw unknownEndpoint(id);
      await executeInTransaction(
        tx,
        `update webhook_deliveries
            set ${failed.set}, next_attempt_at = null, last_error = 'Webhook endpoint deleted',
                lease_token = null, lease_until = null, updated_at = ?
          where endpoint_id = ? and ${failed.allowed}`,
        [now, id],
      );
    });
  }

  /**
   * Sets the first endpoint's URL and enables it (creating it, subscribed to every event,
   * when the merchant has none): the single-endpoint `setWebhookEndpoint`.
   */
  async set(em: EntityManager, merchantId: string, url: unknown): Promise<WebhookEndpointView> {
    const checked = await checkedUrl(this.options, url);
    const now = this.clock.now();
    const id = await em.transactional(async (tx) => {
      await lockMerchantEndpoints(tx, merchantId);
      const updated = await executeInTransaction<{ id: string }>(
        tx,
        `update webhook_endpoints set url = ?, enabled = true, disabled_reason = null, updated_at = ?
          where id = (select id from webhook_endpoints where merchant_id = ? ${OLDEST_FIRST} limit 1)
          returning id`,
        [checked, now, merchantId],
      );
      return updated[0]?.id ?? this.insert(tx, merchantId, checked, ['*'], null);
    });
    await this.resealRow(em, id);
    return this.getById(em, merchantId, id);
  }

  /** Rotates the first endpoint's secret (the single-endpoint `rotateWebhookSecret`). */
  async rotate(em: EntityManager, merchantId: string): Promise<WebhookEndpointView> {
    const first = await this.get(em, merchantId);
    if (!first) throw noEndpoint();
    return this.rotateById(em, merchantId, first.id);
  }

  /**
   * A new secret signs from now on; the old one also signs for the rotation period, so the
   * receiver can switch without rejecting a delivery. Rotating again drops the oldest.
   */
  async rotateById(
    em: EntityManager,
    merchantId: string,
    id: string,
  ): Promise<WebhookEndpointView> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.options.rotationSeconds * 1000);
    // The current secret moves to previous as stored (sealed for this merchant either way).
    const rows = await em.getConnection().execute<{ id: string }[]>(
      `update webhook_endpoints
          set previous_secret = secret, previous_secret_expires_at = ?, secret = ?,
              updated_at = ?
        where id = ? and merchant_id = ?
        returning id`,
      [expires, this.seal(merchantId, newWebhookSecret()), now, id, merchantId],
    );
    if (rows.length === 0) throw unknownEndpoint(id);
    await this.resealRow(em, id);
    return this.getById(em, merchantId, id);
  }

  /**
   * Seals under the current key whatever of this endpoint's row is not: a value of a key being
   * rotated out, and, with `legacyPlaintext` (only `onramp secrets reencrypt`), a plaintext
   * stored before encryption at rest; elsewhere a plaintext is refused (SecretDecryptError).
   * Returns whether it wrote. The update only applies if the row still holds what was read (a
   * concurrent rotation wins).
   */
  async resealRow(
    em: EntityManager,
    endpointId: string,
    options: { legacyPlaintext?: boolean } = {},
  ): Promise<boolean> {
    const [row] = await em
      .getConnection()
      .execute<{ merchant_id: string; secret: string; previous_secret: string | null }[]>(
        'select merchant_id, secret, previous_secret from webhook_endpoints where id = ?',
        [endpointId],
      );
    if (!row) return false;
    const context = webhookSecretContext(row.merchant_id);
    const secret = this.box.reseal(row.secret, context, options);
    const previous =
      row.previous_secret === null ? null : this.box.reseal(row.previous_secret, context, options);
    if (secret === row.secret && previous === row.previous_secret) return false;
    await em.getConnection().execute(
      `update webhook_endpoints set secret = ?, previous_secret = ?
        where id = ? and secret = ? and previous_secret is not distinct from ?`,
      [secret, previous, endpointId, row.secret, row.previous_secret],
    );
    return true;
  }

  /** The secrets that sign a delivery made at `at`: the current one, and the previous in rotation. */
  static signingSecrets(
    endpoint: Pick<WebhookEndpointView, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
    at: Date,
  ): string[] {
    const previousLive =
      endpoint.previousSecret !== null &&
      endpoint.previousSecretExpiresAt !== null &&
      endpoint.previousSecretExpiresAt.getTime() > at.getTime();
    return previousLive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
  }

  private async insert(
    tx: EntityManager,
    merchantId: string,
    url: string,
    events: string[],
    description: string | null,
  ): Promise<string> {
    const now = this.clock.now();
    const [row] = await executeInTransaction<{ id: string }>(
      tx,
      `insert into webhook_endpoints
         (id, merchant_id, url, enabled_events, description, secret, enabled, created_at, updated_at)
       values ('we_' || replace(gen_random_uuid()::text, '-', ''), ?, ?, ${TEXT_ARRAY}, ?, ?, true,
               ?, ?)
       returning id`,
      [
        merchantId,
        url,
        textArray(events),
        description,
        this.seal(merchantId, newWebhookSecret()),
        now,
        now,
      ],
    );
    return row.id;
  }

  private view(row: StoredEndpoint): WebhookEndpointView {
    const context = webhookSecretContext(row.merchantId);
    return {
      ...row,
      status: row.enabled ? 'ENABLED' : 'DISABLED',
      secret: this.box.open(row.secret, context),
      previousSecret:
        row.previousSecret === null ? null : this.box.open(row.previousSecret, context),
    };
  }

  private seal(merchantId: string, secret: string): string {
    return this.box.seal(secret, webhookSecretContext(merchantId));
  }
}
