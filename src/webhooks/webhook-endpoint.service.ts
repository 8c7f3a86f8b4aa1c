import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { WebhookEndpoint } from '../db/entities/webhook-endpoint.entity';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import { parseWebhookUrl } from '../domain/webhook-url';
import { newWebhookSecret } from '../adapters/webhook/webhook-signer';
import type { SecretBox } from '../crypto/secret-box';

export interface WebhookEndpointOptions {
  /** Production: https only. */
  production: boolean;
  /**
   * WEBHOOK_ALLOW_PRIVATE: the operator lets URLs point at loopback and private networks (local
   * receivers). Otherwise, in every environment, the host must resolve to public addresses only.
   */
  allowPrivate: boolean;
  rotationSeconds: number;
  /** DNS check of a host (injected so tests need no resolver). */
  resolvesToPublicOnly: (hostname: string) => Promise<boolean>;
}

/** An endpoint as callers see it: its secrets opened (never the entity: it holds sealed ones). */
export type WebhookEndpointView = Pick<
  WebhookEndpoint,
  | 'merchantId'
  | 'url'
  | 'secret'
  | 'previousSecret'
  | 'previousSecretExpiresAt'
  | 'enabled'
  | 'disabledReason'
  | 'createdAt'
  | 'updatedAt'
>;

/** Sealed secrets are bound to their merchant: a sealed value copied to another row does not open. */
export const webhookSecretContext = (merchantId: string) => `webhook_secret:${merchantId}`;

export const noEndpoint = () =>
  new DomainError(ErrorCode.NotFound, 'No webhook endpoint is set; call setWebhookEndpoint first');

/**
 * A merchant's webhook endpoint: set (creating its secret the first time, re-enabling it after
 * a 410), rotate its secret, and the secrets that sign right now. Secrets are stored sealed with
 * ENCRYPTION_KEY; plaintext `whsec_` values stored before are read as they are and sealed on the
 * next write (or by `onramp secrets reencrypt`).
 */
export class WebhookEndpointService {
  constructor(
    private readonly clock: Clock,
    private readonly box: SecretBox,
    private readonly options: WebhookEndpointOptions,
  ) {}

  async get(em: EntityManager, merchantId: string): Promise<WebhookEndpointView | null> {
    const endpoint = await em.findOne(WebhookEndpoint, { merchantId }, { refresh: true });
    if (!endpoint) return null;
    const context = webhookSecretContext(merchantId);
    return {
      merchantId: endpoint.merchantId,
      url: endpoint.url,
      secret: this.box.open(endpoint.secret, context),
      previousSecret:
        endpoint.previousSecret === null ? null : this.box.open(endpoint.previousSecret, context),
      previousSecretExpiresAt: endpoint.previousSecretExpiresAt,
      enabled: endpoint.enabled,
      disabledReason: endpoint.disabledReason,
      createdAt: endpoint.createdAt,
      updatedAt: endpoint.updatedAt,
    };
  }

  /** The secrets as stored, in one place for sealing and for opening (the job runner signs). */
  open(merchantId: string, stored: string): string {
    return this.box.open(stored, webhookSecretContext(merchantId));
  }

  async set(em: EntityManager, merchantId: string, url: unknown): Promise<WebhookEndpointView> {
    if (typeof url !== 'string') throw invalidParameter('url', 'must be a string');
    const parsed = parseWebhookUrl(url.trim(), { requireHttps: this.options.production });
    if (!this.options.allowPrivate && !(await this.options.resolvesToPublicOnly(parsed.hostname))) {
      throw invalidParameter(
        'url',
        'must resolve to a public address (not loopback, private, link-local or reserved)',
      );
    }
    const now = this.clock.now();
    // One statement: two concurrent first calls cannot both create a secret.
    await em.getConnection().execute(
      `insert into webhook_endpoints
         (merchant_id, url, secret, enabled, created_at, updated_at)
       values (?, ?, ?, true, ?, ?)
       on conflict (merchant_id) do update
         set url = excluded.url, enabled = true, disabled_reason = null,
             updated_at = excluded.updated_at`,
      [merchantId, parsed.toString(), this.seal(merchantId, newWebhookSecret()), now, now],
    );
    await this.resealRow(em, merchantId);
    return (await this.get(em, merchantId))!;
  }

  /**
   * A new secret signs from now on; the old one also signs for the rotation period, so the
   * receiver can switch without rejecting a delivery. Rotating again drops the oldest.
   */
  async rotate(em: EntityManager, merchantId: string): Promise<WebhookEndpointView> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.options.rotationSeconds * 1000);
    // The current secret moves to previous as stored (sealed for this merchant either way);
    // resealRow then seals it if it was a plaintext from before.
    const rows = await em.getConnection().execute<{ merchant_id: string }[]>(
      `update webhook_endpoints
          set previous_secret = secret, previous_secret_expires_at = ?, secret = ?,
              updated_at = ?
        where merchant_id = ?
        returning merchant_id`,
      [expires, this.seal(merchantId, newWebhookSecret()), now, merchantId],
    );
    if (rows.length === 0) throw noEndpoint();
    await this.resealRow(em, merchantId);
    return (await this.get(em, merchantId))!;
  }

  private seal(merchantId: string, secret: string): string {
    return this.box.seal(secret, webhookSecretContext(merchantId));
  }

  /**
   * Seals under the current key whatever of this merchant's row is not: a plaintext stored
   * before encryption at rest, or a value of a key being rotated out. Returns whether it wrote.
   * The update only applies if the row still holds what was read (a concurrent rotation wins).
   */
  async resealRow(em: EntityManager, merchantId: string): Promise<boolean> {
    const [row] = await em
      .getConnection()
      .execute<{ secret: string; previous_secret: string | null }[]>(
        'select secret, previous_secret from webhook_endpoints where merchant_id = ?',
        [merchantId],
      );
    if (!row) return false;
    const context = webhookSecretContext(merchantId);
    const secret = this.box.reseal(row.secret, context);
    const previous =
      row.previous_secret === null ? null : this.box.reseal(row.previous_secret, context);
    if (secret === row.secret && previous === row.previous_secret) return false;
    await em.getConnection().execute(
      `update webhook_endpoints set secret = ?, previous_secret = ?
        where merchant_id = ? and secret = ? and previous_secret is not distinct from ?`,
      [secret, previous, merchantId, row.secret, row.previous_secret],
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
}
