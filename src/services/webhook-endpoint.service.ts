import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { WebhookEndpoint } from '../db/entities/webhook-endpoint.entity';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import { parseWebhookUrl } from '../domain/webhook-url';
import { newWebhookSecret } from '../adapters/webhook/webhook-signer';

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

export const noEndpoint = () =>
  new DomainError(ErrorCode.NotFound, 'No webhook endpoint is set; call setWebhookEndpoint first');

/**
 * A merchant's webhook endpoint: set (creating its secret the first time, re-enabling it after
 * a 410), rotate its secret, and the secrets that sign right now.
 */
export class WebhookEndpointService {
  constructor(
    private readonly clock: Clock,
    private readonly options: WebhookEndpointOptions,
  ) {}

  async get(em: EntityManager, merchantId: string): Promise<WebhookEndpoint | null> {
    return em.findOne(WebhookEndpoint, { merchantId }, { refresh: true });
  }

  async set(em: EntityManager, merchantId: string, url: unknown): Promise<WebhookEndpoint> {
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
      [merchantId, parsed.toString(), newWebhookSecret(), now, now],
    );
    return (await this.get(em, merchantId))!;
  }

  /**
   * A new secret signs from now on; the old one also signs for the rotation period, so the
   * receiver can switch without rejecting a delivery. Rotating again drops the oldest.
   */
  async rotate(em: EntityManager, merchantId: string): Promise<WebhookEndpoint> {
    const now = this.clock.now();
    const expires = new Date(now.getTime() + this.options.rotationSeconds * 1000);
    const rows = await em.getConnection().execute<{ merchant_id: string }[]>(
      `update webhook_endpoints
          set previous_secret = secret, previous_secret_expires_at = ?, secret = ?,
              updated_at = ?
        where merchant_id = ?
        returning merchant_id`,
      [expires, newWebhookSecret(), now, merchantId],
    );
    if (rows.length === 0) throw noEndpoint();
    return (await this.get(em, merchantId))!;
  }

  /** The secrets that sign a delivery made at `at`: the current one, and the previous in rotation. */
  static signingSecrets(
    endpoint: Pick<WebhookEndpoint, 'secret' | 'previousSecret' | 'previousSecretExpiresAt'>,
    at: Date,
  ): string[] {
    const previousLive =
      endpoint.previousSecret !== null &&
      endpoint.previousSecretExpiresAt !== null &&
      endpoint.previousSecretExpiresAt.getTime() > at.getTime();
    return previousLive ? [endpoint.secret, endpoint.previousSecret!] : [endpoint.secret];
  }
}
