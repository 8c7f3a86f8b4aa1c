import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { ChannelSubscription, NotificationHub } from '../db/notification-hub';
import { liveApiKeys, liveDashboardSessions } from '../merchants';
import { liveClientSecrets } from '../onramps';
import { CREDENTIAL_REVOKED } from '../events';
import type { SocketRegistry } from './ws-sockets';

export interface CredentialWatchOptions {
  /** The process's LISTEN connection. */
  notifications: NotificationHub;
  orm: MikroORM;
  sockets: SocketRegistry;
  clock: Clock;
  log: Logger;
  /** How often every open socket's credential is read again (a NOTIFY can be missed). */
  recheckMs: number;
}

/**
 * Ends this gateway's sockets whose credential ended, whichever process ended it: a LISTEN on
 * `onramp_credential_revoked` closes them at once. NOTIFY is only a trigger (one sent while
 * the listener was reconnecting is lost), so after every (re)connection and on a timer the
 * credentials of all open sockets are read again, one query per kind of credential.
 */
export class CredentialWatch {
  private subscription: ChannelSubscription | undefined;
  private timer: NodeJS.Timeout | undefined;
  private recheckRunning: Promise<void> | undefined;

  constructor(private readonly options: CredentialWatchOptions) {}

  async start(): Promise<void> {
    this.subscription = await this.options.notifications.subscribe(CREDENTIAL_REVOKED.name, {
      onNotification: (_channel, payload) => this.onRevoked(payload),
      onConnected: () => void this.recheck(),
    });
    this.timer = setInterval(() => void this.recheck(), this.options.recheckMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    await this.subscription?.close();
    await this.recheckRunning;
  }

  private onRevoked(payload: string): void {
    const credential = CREDENTIAL_REVOKED.parse(payload);
    if (!credential) {
      this.options.log.warn({ payload }, 'ignored a malformed credential revocation notice');
      return;
    }
    const { sockets } = this.options;
    const closed =
      credential.kind === 'api_key'
        ? sockets.keyRevoked(credential.id)
        : credential.kind === 'dashboard_session'
          ? sockets.sessionEnded(credential.id)
          : sockets.clientSecretRevoked(credential.id);
    if (closed > 0) {
      this.options.log.info({ kind: credential.kind, sockets: closed }, 'credential revoked');
    }
  }

  /** Reads every open socket's credential again; one run at a time. */
  recheck(): Promise<void> {
    this.recheckRunning ??= this.readAll()
      .catch((error: unknown) => {
        this.options.log.warn({ err: error }, 'websocket credential re-check failed');
      })
      .finally(() => {
        this.recheckRunning = undefined;
      });
    return this.recheckRunning;
  }

  private async readAll(): Promise<void> {
    const { sockets } = this.options;
    const { keyIds, sessionIds, clientSecretHashes } = sockets.credentials();
    const em = this.options.orm.em;
    // Each read returns the credentials still valid; the others are gone.
    if (keyIds.length > 0) {
      const valid = await liveApiKeys(em, keyIds);
      for (const id of keyIds) if (!valid.has(id)) sockets.keyRevoked(id);
    }
    if (sessionIds.length > 0) {
      const valid = await liveDashboardSessions(em, sessionIds, this.options.clock.now());
      for (const id of sessionIds) if (!valid.has(id)) sockets.sessionEnded(id);
    }
    if (clientSecretHashes.length > 0) {
      // Expiry is each socket's own timer; a revocation whose notice was missed shows here.
      const valid = await liveClientSecrets(em, clientSecretHashes);
      sockets.clientSecretsGone(new Set(clientSecretHashes.filter((h) => !valid.has(h))));
    }
  }
}
