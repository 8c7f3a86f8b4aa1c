import { Client } from 'pg';
import type { Logger } from 'pino';

/** What one user of a channel is told. Each callback runs in-process, synchronously. */
export interface ChannelSubscriber {
  onNotification: (channel: string, payload: string) => void;
  /**
   * Called once this subscriber's channel is LISTENed on a live connection, and again after
   * every reconnection: whatever was sent while not listening is lost, so catch up now.
   */
  onConnected?: () => void;
  /** Called when the connection this subscriber was told about drops (notices are missed). */
  onDisconnected?: () => void;
}

/** A subscriber's handle: `close()` stops its notices (and UNLISTENs a channel nobody wants). */
export interface ChannelSubscription {
  close(): Promise<void>;
}

export interface NotificationHubOptions {
  databaseUrl: string;
  /** Shown in pg_stat_activity, so operators (and tests) can tell this connection apart. */
  applicationName: string;
  log: Logger;
  /** First reconnection delay (doubling up to 15 s). */
  retryMs?: number;
}

interface Entry {
  channel: string;
  subscriber: ChannelSubscriber;
  /** Told `onConnected` on the current connection (and not yet `onDisconnected`). */
  connected: boolean;
}

/** How each process's LISTEN connection shows in pg_stat_activity. */
export const GATEWAY_LISTEN_APPLICATION_NAME = 'onramp-gateway-listen';
export const JOBS_LISTEN_APPLICATION_NAME = 'onramp-jobs-listen';

const MAX_RETRY_MS = 15_000;
/** A server that accepts the socket but never answers must not hold the attempt forever. */
const CONNECT_TIMEOUT_MS = 10_000;
const quoted = (channel: string) => `"${channel.replace(/"/g, '')}"`;

/**
 * The process's one LISTEN connection (one per gateway, one per job runner). Every channel a
 * subscriber registers is LISTENed on it, on the live connection if it is up; each notice is
 * handed to that channel's subscribers in-process. It reconnects by itself (1 s, doubling to
 * 15 s), LISTENs on every registered channel again and then tells every subscriber
 * `onConnected`, so each catches up from the database in its own way. NOTIFY is a trigger
 * only: the database stays the source of truth.
 */
export class NotificationHub {
  private readonly entries = new Set<Entry>();
  /** The latest attempt's connection, up or connecting; events of older ones are ignored. */
  private current: Client | undefined;
  /** `current` once every registered channel is LISTENed on it; undefined while down. */
  private live: Client | undefined;
  /** Channels LISTENed (or being LISTENed) on `current`. */
  private listened = new Map<string, Promise<unknown>>();
  /**
   * The last statement sent on `current`: each LISTEN and UNLISTEN waits for the one before,
   * since pg deprecates a query sent while another runs on the same client.
   */
  private lastStatement: Promise<unknown> = Promise.resolve();
  private connecting: Promise<void> | undefined;
  private started = false;
  private stopped = false;
  private retryMs: number;
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: NotificationHubOptions) {
    this.retryMs = options.retryMs ?? 1000;
  }

  /** The LISTEN connection is up. */
  get connected(): boolean {
    return this.live !== undefined;
  }

  /** Resolves after the first connection attempt; if it failed, the hub keeps retrying. */
  async start(): Promise<void> {
    if (this.started || this.stopped) return;
    this.started = true;
    await this.connect();
  }

  /**
   * Registers `subscriber` on `channel`. Resolves once it has been told `onConnected` (the
   * connection was up, or came up in the attempt under way), or at once while the connection
   * is down (it is told when it comes back).
   */
  async subscribe(channel: string, subscriber: ChannelSubscriber): Promise<ChannelSubscription> {
    if (this.stopped) throw new Error('the notification hub is stopped');
    const entry: Entry = { channel, subscriber, connected: false };
    this.entries.add(entry);
    const subscription = { close: () => this.unsubscribe(entry) };
    // The attempt under way LISTENs on every channel registered before it ends.
    if (!this.live && this.connecting) await this.connecting;
    const client = this.live;
    if (!client || entry.connected || !this.entries.has(entry)) return subscription;
    try {
      await this.listen(client, channel);
    } catch {
      return subscription; // the connection is dropping: it reconnects and tells us then
    }
    if (this.live === client && this.entries.has(entry) && !entry.connected) {
      entry.connected = true;
      this.tell(() => subscriber.onConnected?.());
    }
    return subscription;
  }

  /**
   * Closes the connection once (an attempt under way included: it ends without telling
   * anyone); subscribers are not told (they are stopping too).
   */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    const client = this.current;
    const live = this.live;
    this.current = undefined;
    this.live = undefined;
    this.entries.clear();
    if (client) {
      client.removeAllListeners('end');
      const ending = client.end().catch(() => undefined);
      // A connection still being made may never finish ending (a server that accepted the
      // socket and says nothing): its attempt gives up at CONNECT_TIMEOUT_MS instead.
      if (client === live) await ending;
    }
  }

  private async unsubscribe(entry: Entry): Promise<void> {
    if (!this.entries.delete(entry)) return;
    const client = this.current;
    if (!client || this.wanted(entry.channel) || !this.listened.has(entry.channel)) return;
    this.listened.delete(entry.channel);
    // Queued after any LISTEN on the same client, so a re-subscribe's LISTEN comes after it.
    await this.send(client, `unlisten ${quoted(entry.channel)}`).catch(() => undefined);
  }

  private wanted(channel: string): boolean {
    for (const entry of this.entries) if (entry.channel === channel) return true;
    return false;
  }

  /** One LISTEN per channel per connection; a second subscriber waits for the first's. */
  private listen(client: Client, channel: string): Promise<unknown> {
    let listening = this.listened.get(channel);
    if (!listening) {
      listening = this.send(client, `listen ${quoted(channel)}`);
      this.listened.set(channel, listening);
      // A failure shows to whoever awaits it; the connection's 'error' handles the rest.
      listening.catch(() => undefined);
    }
    return listening;
  }

  /** `sql` on `client` once the statement sent before it has finished (failed or not). */
  private send(client: Client, sql: string): Promise<unknown> {
    const sent = this.lastStatement.then(() => client.query(sql));
    this.lastStatement = sent.catch(() => undefined);
    return sent;
  }

  private connect(): Promise<void> {
    this.connecting = this.attempt().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  private async attempt(): Promise<void> {
    const client = new Client({
      connectionString: this.options.databaseUrl,
      application_name: this.options.applicationName,
      connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
      // A connection that only listens sends nothing for hours: keepalives find a peer that
      // vanished (a failover, a dropped NAT entry) instead of waiting for notices forever.
      keepAlive: true,
    });
    this.current = client;
    this.listened = new Map();
    this.lastStatement = Promise.resolve();
    client.on('notification', (message) => {
      if (message.payload === undefined || client !== this.current) return;
      for (const entry of [...this.entries]) {
        if (entry.channel !== message.channel) continue;
        this.tell(() => entry.subscriber.onNotification(message.channel, message.payload!));
      }
    });
    client.on('error', (error) => {
      this.options.log.warn({ err: error }, 'listen connection error');
      this.reconnectLater(client);
    });
    client.on('end', () => this.reconnectLater(client));
    try {
      await client.connect();
      // Until every channel registered so far (subscribers may arrive meanwhile) is LISTENed.
      for (;;) {
        const missing = [...this.entries].find((e) => !this.listened.has(e.channel));
        if (!missing) break;
        await this.listen(client, missing.channel);
      }
    } catch (error) {
      if (client !== this.current) return; // stopped meanwhile
      this.options.log.warn({ err: error }, 'listen connection failed');
      this.reconnectLater(client);
      return;
    }
    if (client !== this.current) return;
    this.live = client;
    this.retryMs = this.options.retryMs ?? 1000;
    // A snapshot: a subscriber added by one of these callbacks LISTENs on its own.
    for (const entry of [...this.entries]) {
      entry.connected = true;
      this.tell(() => entry.subscriber.onConnected?.());
    }
  }

  /** The connection `client` failed or ended: tell who was told it was up, and try again. */
  private reconnectLater(client: Client): void {
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    if (this.stopped || client !== this.current) return;
    if (this.live === client) {
      this.live = undefined;
      for (const entry of [...this.entries]) {
        if (!entry.connected) continue;
        entry.connected = false;
        this.tell(() => entry.subscriber.onDisconnected?.());
      }
    }
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (!this.stopped) void this.connect();
    }, this.retryMs);
    this.retryMs = Math.min(this.retryMs * 2, MAX_RETRY_MS);
  }

  /** One subscriber's failure is its own: the others still hear the notice. */
  private tell(callback: () => void): void {
    try {
      callback();
    } catch (error) {
      this.options.log.error({ err: error }, 'a notification subscriber failed');
    }
  }
}
