import { setImmediate as yieldToIo } from 'node:timers/promises';
import type { Logger } from 'pino';
import type { Clock } from '../../clock';
import type { ChannelSubscription, NotificationHub } from '../../db/notification-hub';
import { DomainError, ErrorCode } from '../../domain/errors';
import { depositViewFromSnapshot } from '../../deposits';
import { DepositNode } from '../graphql/types/deposit.type';
import {
  DepositEventStore,
  type DepositEventRow,
  DEPOSIT_EVENTS,
  type DepositEventNotice,
} from '../../events';
import { DepositSubscribers, type DepositEventFilter } from './deposit-subscribers';
import { DEFAULT_SUBSCRIBER_QUEUE_LIMIT } from './subscriber-queue';
import { SeenSeqs } from './seen-seqs';

export type { DepositEventFilter } from './deposit-subscribers';

/** The outbox reader pool is `${name}-reader` in pg_stat_activity. */
export const HUB_APPLICATION_NAME = 'onramp-gateway-events';

/** What resolvers see of the hub (through the GraphQL context). */
export interface DepositEvents {
  /**
   * The caller's deposit status changes from now on. Ends with an error if the client falls
   * `queueLimit` messages behind; `onOverflow` is then told (to close the client's socket).
   */
  subscribe(
    filter: DepositEventFilter,
    options?: { onOverflow?: (error: DomainError) => void },
  ): AsyncIterableIterator<DepositNode>;
}

export interface DepositEventHubOptions {
  /** For the outbox reader pool. */
  databaseUrl: string;
  /** The process's LISTEN connection: `deposit_events` is subscribed on it. */
  notifications: NotificationHub;
  clock: Clock;
  log: Logger;
  queueLimit?: number;
  /** How long a missing seq is looked for after a reconnect (a rolled-back one never shows). */
  gapTtlMs?: number;
  retryMs?: number;
  /** Names the reader pool (`${applicationName}-reader`). */
  applicationName?: string;
}

/** Seqs per `where seq = any($1)` read. */
const READ_BATCH = 1000;
/** Events per catch-up read; a longer backlog is read in several. */
const CATCH_UP_LIMIT = 5000;
/** How far below the top the first catch-up looks for transactions still in flight. */
const FIRST_LOOKBACK = 1000;
/**
 * Messages (events times their subscribers) published between two yields to I/O, so sockets
 * drain and requests get their turn while a backlog, or one event to many subscribers, goes out.
 */
const PUBLISH_SLICE = 1000;

/**
 * One per gateway process: the `deposit_events` notices heard on the process's LISTEN
 * connection, turned into graphql-ws `depositUpdated` messages for this gateway's subscribers,
 * whichever process changed the deposit. NOTIFY is only a trigger; the outbox (`events`) is
 * what is sent. Each event goes to each subscriber once (deduplicated by seq), in commit order
 * per deposit, and nothing is lost across this gateway's LISTEN reconnects: after each one it
 * catches up from the outbox (the highest seq seen and the gaps below it). All reads and
 * deliveries run one at a time, in order; publishing only appends to each subscriber's
 * bounded queue.
 */
export class DepositEventHub implements DepositEvents {
  private readonly subscribers: DepositSubscribers;
  private readonly seen: SeenSeqs;
  private readonly store: DepositEventStore;
  private subscription: ChannelSubscription | undefined;
  private readonly log: Logger;
  private pending = new Map<number, DepositEventNotice>();
  private catchUpOwed = false;
  private tickQueued = false;
  private work: Promise<void> = Promise.resolve();
  private retryTimer: NodeJS.Timeout | undefined;
  private stopped = false;

  constructor(private readonly options: DepositEventHubOptions) {
    this.log = options.log;
    this.subscribers = new DepositSubscribers(options.queueLimit ?? DEFAULT_SUBSCRIBER_QUEUE_LIMIT);
    this.seen = new SeenSeqs({
      gapTtlMs: options.gapTtlMs ?? 60_000,
      maxGaps: 10_000,
      now: () => options.clock.now().getTime(),
    });
    const applicationName = options.applicationName ?? HUB_APPLICATION_NAME;
    this.store = new DepositEventStore({
      databaseUrl: options.databaseUrl,
      applicationName: `${applicationName}-reader`,
      log: options.log,
    });
  }

  /**
   * Resolves once listening and placed in the event stream. If the LISTEN connection is down,
   * it resolves anyway and catches up when the connection comes back.
   */
  async start(): Promise<void> {
    this.subscription = await this.options.notifications.subscribe(DEPOSIT_EVENTS.name, {
      onNotification: (_channel, payload) => this.onNotice(payload),
      onConnected: () => this.onConnected(),
    });
    await this.work;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    await this.subscription?.close();
    await this.work;
    this.subscribers.endAll();
    await this.store.close();
  }

  /** Subscriptions open on this gateway. */
  get subscriberCount(): number {
    return this.subscribers.size;
  }

  subscribe(
    filter: DepositEventFilter,
    options: { onOverflow?: (error: DomainError) => void } = {},
  ): AsyncIterableIterator<DepositNode> {
    if (this.stopped) {
      throw new DomainError(ErrorCode.ServiceUnavailable, 'The gateway is shutting down');
    }
    return this.subscribers.add(filter, (error) => {
      this.log.warn({ merchantId: filter.merchantId }, 'slow subscriber cut off');
      options.onOverflow?.(error);
    });
  }

  private onNotice(payload: string): void {
    const notice = DEPOSIT_EVENTS.parse(payload);
    if (!notice) {
      this.log.warn({ payload }, 'unreadable deposit event notice');
      return;
    }
    this.pending.set(notice.seq, notice);
    this.scheduleTick();
  }

  /** Notices sent while we were not listening are lost: catch up from the outbox first. */
  private onConnected(): void {
    this.catchUpOwed = true;
    this.scheduleTick();
  }

  /** Queues one pass over the work (notices arriving meanwhile join the same pass). */
  private scheduleTick(): void {
    if (this.tickQueued || this.stopped) return;
    this.tickQueued = true;
    this.work = this.work.then(async () => {
      this.tickQueued = false;
      if (this.stopped) return;
      try {
        await this.tick();
      } catch (error) {
        this.log.warn({ err: error }, 'deposit events: read failed, retrying');
        this.retryLater();
      }
    });
  }

  private retryLater(): void {
    if (this.retryTimer || this.stopped) return;
    this.retryTimer = setTimeout(() => {
      this.retryTimer = undefined;
      this.scheduleTick();
    }, this.options.retryMs ?? 1000);
  }

  private async tick(): Promise<void> {
    // Catch-up comes before newer notices, so each deposit's changes stay in commit order.
    if (this.catchUpOwed) {
      await this.catchUp();
      this.catchUpOwed = false;
    }
    await this.deliverNotices();
  }

  private async catchUp(): Promise<void> {
    const first = !this.seen.positioned;
    for (;;) {
      const read = await this.store.catchUp({
        after: this.seen.highest,
        gaps: this.seen.gapList(),
        // The first time, there is no "since": nobody here can have missed anything yet.
        merchantIds: first ? [] : this.subscribers.merchantIds(),
        lookback: FIRST_LOOKBACK,
        limit: CATCH_UP_LIMIT,
      });
      const fresh = read.events.filter((event) => this.seen.isNew(event.seq));
      this.seen.caughtUp(read.top, read.missing);
      if (fresh.length > 0) this.log.info({ events: fresh.length }, 'caught up deposit events');
      await this.publishAll(fresh);
      if (!read.truncated) return;
    }
  }

  private async deliverNotices(): Promise<void> {
    if (this.pending.size === 0) return;
    const notices = [...this.pending.values()].sort((a, b) => a.seq - b.seq);
    const wanted = notices
      .filter((n) => this.seen.isNew(n.seq) && this.subscribers.wants(n.merchantId, n))
      .map((n) => n.seq);
    const rows: DepositEventRow[] = [];
    for (let i = 0; i < wanted.length; i += READ_BATCH) {
      // A failed read throws with the notices still pending: the retry reads them again.
      rows.push(...(await this.store.bySeq(wanted.slice(i, i + READ_BATCH))));
    }
    for (const notice of notices) this.pending.delete(notice.seq);
    const bySeq = new Map(rows.map((row) => [row.seq, row]));
    const fresh: DepositEventRow[] = [];
    for (const notice of notices) {
      if (!this.seen.markSeen(notice.seq)) continue;
      const row = bySeq.get(notice.seq);
      if (row) fresh.push(row);
    }
    await this.publishAll(fresh);
  }

  private async publishAll(rows: DepositEventRow[]): Promise<void> {
    let slice = 0;
    for (const row of rows) {
      if (slice >= PUBLISH_SLICE) {
        slice = 0;
        await yieldToIo();
      }
      const deposit = this.present(row);
      // At least one per event: a backlog nobody here wants still yields now and then.
      if (deposit) slice += Math.max(1, this.subscribers.publish(deposit));
      else slice += 1;
    }
  }

  private present(row: DepositEventRow): DepositNode | undefined {
    try {
      return DepositNode.from(depositViewFromSnapshot(row.snapshot));
    } catch (error) {
      this.log.error({ err: error, seq: row.seq }, 'malformed deposit event snapshot');
      return undefined;
    }
  }
}
