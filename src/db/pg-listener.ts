import { Client } from 'pg';
import type { Logger } from 'pino';

export interface PgListenerOptions {
  databaseUrl: string;
  channels: string[];
  onNotification: (channel: string, payload: string) => void;
  /** Called after every (re)connection: whatever was sent while disconnected is lost. */
  onConnected?: () => void;
  /** Called when an established connection drops (notices sent from now on are missed). */
  onDisconnected?: () => void;
  /** Shown in pg_stat_activity, so operators (and tests) can tell this connection apart. */
  applicationName?: string;
  log: Logger;
}

/**
 * A dedicated LISTEN connection that reconnects by itself (1 s, doubling to 15 s). NOTIFY is
 * a trigger only: the database stays the source of truth, and callers catch up from it after
 * a reconnect.
 */
export class PgListener {
  private client: Client | undefined;
  private stopped = false;
  private retryMs = 1000;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: PgListenerOptions) {}

  async start(): Promise<void> {
    await this.connect();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(): Promise<void> {
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: this.options.applicationName,
    });
    client.on('notification', (message) => {
      if (message.payload !== undefined) {
        this.options.onNotification(message.channel, message.payload);
      }
    });
    client.on('error', (error) => {
      this.options.log.warn({ err: error }, 'listen connection error');
      this.reconnectLater(client);
    });
    client.on('end', () => this.reconnectLater(client));
    try {
      await client.connect();
      for (const channel of this.options.channels) {
        await client.query(`listen "${channel.replace(/"/g, '')}"`);
      }
    } catch (error) {
      this.options.log.warn({ err: error }, 'listen connection failed');
      this.reconnectLater(client);
      return;
    }
    this.client = client;
    this.retryMs = 1000;
    this.options.onConnected?.();
  }

  private reconnectLater(client: Client): void {
    if (this.stopped || (this.client !== undefined && this.client !== client)) return;
    if (this.client === client) this.options.onDisconnected?.();
    this.client = undefined;
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.connect();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, 15_000);
  }
}
