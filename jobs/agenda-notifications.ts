import {
  BaseNotificationChannel,
  toJobId,
  type JobNotification,
  type JobStateNotification,
  type JobStateType,
} from 'agenda';
import type { Pool } from 'pg';
import type { ChannelSubscription, NotificationHub } from '../src/db/notification-hub';

/**
 * The channels and payloads of @agendajs/postgres-backend's own PostgresNotificationChannel
 * (`agenda:jobs`, `agenda:jobs:state`, its JSON), so a runner using this one and a runner of
 * an older version using that one hear each other.
 */
const JOBS_CHANNEL = 'agenda:jobs';
const STATE_CHANNEL = `${JOBS_CHANNEL}:state`;

/** A notice as sent: dates as ISO strings. */
interface Wire {
  jobId: string;
  jobName: string;
  timestamp: string;
  source?: string;
  nextRunAt?: string | null;
  priority?: number;
  type?: string;
  progress?: number;
  error?: string;
  failCount?: number;
  retryAt?: string;
  retryAttempt?: number;
  duration?: number;
  lastRunAt?: string;
  lastFinishedAt?: string;
}

const iso = (date: Date | undefined) => date?.toISOString();
const date = (text: string | undefined | null) => (text ? new Date(text) : undefined);

/**
 * Agenda's PostgreSQL notification channel (a job saved is run at once by a runner that hears
 * it, instead of at the next poll) on the runner's one LISTEN connection instead of a
 * connection of its own. NOTIFY goes out through Agenda's pool. It is 'connected' while that
 * LISTEN is up; Agenda publishes nothing otherwise, and its poll finds the jobs anyway.
 */
export class HubNotificationChannel extends BaseNotificationChannel {
  private subscriptions: ChannelSubscription[] = [];

  constructor(
    private readonly notifications: NotificationHub,
    private readonly pool: Pool,
  ) {
    super({ channelName: JOBS_CHANNEL });
  }

  async connect(): Promise<void> {
    if (this.subscriptions.length > 0) return;
    this.setState('connecting');
    // The state channel first: the jobs channel's callbacks say when both are LISTENed.
    this.subscriptions.push(
      await this.notifications.subscribe(STATE_CHANNEL, {
        onNotification: (_channel, payload) => this.received(payload, 'state'),
      }),
    );
    this.subscriptions.push(
      await this.notifications.subscribe(JOBS_CHANNEL, {
        onNotification: (_channel, payload) => this.received(payload, 'job'),
        onConnected: () => this.setState('connected'),
        onDisconnected: () => this.setState('reconnecting'),
      }),
    );
  }

  async disconnect(): Promise<void> {
    const closing = this.subscriptions;
    this.subscriptions = [];
    await Promise.all(closing.map((subscription) => subscription.close()));
    this.handlers.clear();
    this.stateHandlers.clear();
    this.setState('disconnected');
  }

  async publish(notification: JobNotification): Promise<void> {
    await this.notify(JOBS_CHANNEL, {
      jobId: notification.jobId,
      jobName: notification.jobName,
      nextRunAt: notification.nextRunAt?.toISOString() || null,
      priority: notification.priority,
      timestamp: notification.timestamp.toISOString(),
      source: notification.source,
    });
  }

  async publishState(notification: JobStateNotification): Promise<void> {
    await this.notify(STATE_CHANNEL, {
      type: notification.type,
      jobId: notification.jobId,
      jobName: notification.jobName,
      timestamp: notification.timestamp.toISOString(),
      source: notification.source,
      progress: notification.progress,
      error: notification.error,
      failCount: notification.failCount,
      retryAt: iso(notification.retryAt),
      retryAttempt: notification.retryAttempt,
      duration: notification.duration,
      lastRunAt: iso(notification.lastRunAt),
      lastFinishedAt: iso(notification.lastFinishedAt),
    });
  }

  private async notify(channel: string, body: object): Promise<void> {
    if (this.state !== 'connected') throw new Error('Cannot publish: channel not connected');
    await this.pool.query('select pg_notify($1, $2)', [channel, JSON.stringify(body)]);
  }

  /** A notice Agenda cannot read is reported as its own channel reports one (an 'error'). */
  private received(payload: string, kind: 'job' | 'state'): void {
    if (!payload) return;
    let wire: Wire;
    try {
      wire = JSON.parse(payload) as Wire;
    } catch (error) {
      this.emit('error', error);
      return;
    }
    const common = {
      jobId: toJobId(wire.jobId),
      jobName: wire.jobName,
      timestamp: new Date(wire.timestamp),
      source: wire.source,
    };
    const handled =
      kind === 'job'
        ? this.notifyHandlers({
            ...common,
            nextRunAt: date(wire.nextRunAt) ?? null,
            priority: wire.priority as number,
          })
        : this.notifyStateHandlers({
            ...common,
            type: wire.type as JobStateType,
            progress: wire.progress,
            error: wire.error,
            failCount: wire.failCount,
            retryAt: date(wire.retryAt),
            retryAttempt: wire.retryAttempt,
            duration: wire.duration,
            lastRunAt: date(wire.lastRunAt),
            lastFinishedAt: date(wire.lastFinishedAt),
          });
    handled.catch((error: unknown) => this.emit('error', error));
  }
}
