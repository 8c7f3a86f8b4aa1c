import type { Logger } from 'pino';
import { PgListener } from '../db/pg-listener';
import { CREDENTIAL_REVOKED } from '../events';
import type { ApiKeyCache } from './api-key-cache';

export const KEY_CACHE_LISTENER_APPLICATION_NAME = 'onramp-gateway-key-cache';

/**
 * Keeps a gateway's API key cache honest: a LISTEN on `onramp_credential_revoked` (sent by the
 * `api_keys` triggers in the revoking transaction, whichever process revokes: REST, GraphQL,
 * the dashboard, the operator's CLI or admin API) drops a revoked key at once, and while that
 * connection is down the cache is off (every request reads the database).
 */
export class ApiKeyRevocations {
  private readonly listener: PgListener;

  constructor(
    private readonly cache: ApiKeyCache,
    options: { databaseUrl: string; log: Logger },
  ) {
    this.listener = new PgListener({
      databaseUrl: options.databaseUrl,
      channels: [CREDENTIAL_REVOKED.name],
      applicationName: KEY_CACHE_LISTENER_APPLICATION_NAME,
      log: options.log,
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

  async start(): Promise<void> {
    await this.listener.start();
  }

  async stop(): Promise<void> {
    this.cache.listening(false);
    await this.listener.stop();
  }
}
