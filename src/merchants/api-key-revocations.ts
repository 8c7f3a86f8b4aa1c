import type { ChannelSubscription, NotificationHub } from '../db/notification-hub';
import { CREDENTIAL_REVOKED } from '../events';
import type { ApiKeyCache } from './api-key-cache';

/**
 * Keeps a gateway's API key cache honest: a LISTEN on `onramp_credential_revoked` (sent by the
 * `api_keys` triggers in the revoking transaction, whichever process revokes: REST, GraphQL,
 * the dashboard, the operator's CLI or admin API) drops a revoked key at once, and while that
 * connection is down the cache is off (every request reads the database).
 */
export class ApiKeyRevocations {
  private subscription: ChannelSubscription | undefined;

  constructor(
    private readonly cache: ApiKeyCache,
    private readonly notifications: NotificationHub,
  ) {}

  /** Subscribes on the process's LISTEN connection; the cache is on once that is up. */
  async start(): Promise<void> {
    const { cache } = this;
    this.subscription = await this.notifications.subscribe(CREDENTIAL_REVOKED.name, {
      onNotification: (_channel, payload) => {
        const credential = CREDENTIAL_REVOKED.parse(payload);
        // Unreadable: which key it names is unknown, so forget them all.
        if (!credential) cache.clear();
        else if (credential.kind === 'api_key') cache.revoked(credential.id);
      },
      onConnected: () => cache.listening(true),
      onDisconnected: () => cache.listening(false),
    });
  }

  async stop(): Promise<void> {
    this.cache.listening(false);
    await this.subscription?.close();
  }
}
