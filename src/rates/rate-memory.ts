import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../clock';
import type { ChannelSubscription, NotificationHub } from '../db/notification-hub';
import { Rate } from './rate.entity';

/**
 * The channel of migration 20261125120200: a statement-level trigger on `rates` sends it (no
 * payload) whenever rates are written. Kept here, beside its only listener, while it is the
 * rates module's own.
 */
export const RATES_PUBLISHED = 'rates_published';

/**
 * A gateway's in-memory copy of the rates that have not expired: the same for every merchant
 * (outside the sandbox's per-merchant scenarios), published every few minutes, read on every
 * quote. Read once when the LISTEN connects and again on every notice; answers only while
 * that connection is up and its last read succeeded, and only with a rate the injected clock
 * says is still valid. Whatever it cannot answer (nothing valid held, listener down) the
 * caller reads from the database, so a rate published a moment ago is never reported missing.
 */
export class RateMemory {
  /** Newest first, as the database orders them. */
  private rates: Rate[] = [];
  private live = false;
  /** The LISTEN connection is up (notices reach us). */
  private connected = false;
  /** Bumped by every notice and (dis)connection: a read started before one is stale. */
  private generation = 0;
  private reading: Promise<void> | undefined;
  private subscription: ChannelSubscription | undefined;

  constructor(private readonly clock: Clock) {}

  get active(): boolean {
    return this.live;
  }

  /** The newest rate to `to` valid now, or undefined (then ask the database). */
  current(to: string): Rate | undefined {
    if (!this.live) return undefined;
    const now = this.clock.now().getTime();
    return this.rates.find((r) => r.to === to && r.expiresAt.getTime() > now);
  }

  /** Subscribes on the process's LISTEN connection; resolves after the first read if it is up. */
  async start(options: {
    notifications: NotificationHub;
    em: EntityManager;
    log: Logger;
  }): Promise<void> {
    const reread = () => {
      this.generation += 1;
      void this.read(options.em, options.log);
    };
    this.subscription = await options.notifications.subscribe(RATES_PUBLISHED, {
      onNotification: reread,
      onConnected: () => {
        this.connected = true;
        reread();
      },
      onDisconnected: () => {
        this.connected = false;
        this.generation += 1;
        this.live = false;
      },
    });
    await this.reading;
  }

  async stop(): Promise<void> {
    this.connected = false;
    this.live = false;
    this.generation += 1;
    await this.subscription?.close();
    await this.reading;
  }

  /**
   * Reads the valid rates; one read at a time, and another after it if a notice came
   * meanwhile (the read in flight may have missed what that notice announced).
   */
  private async read(em: EntityManager, log: Logger): Promise<void> {
    if (this.reading) return;
    const run = async () => {
      for (;;) {
        if (!this.connected) {
          this.live = false;
          return;
        }
        const generation = this.generation;
        try {
          const rates = await em
            .fork()
            .find(
              Rate,
              { expiresAt: { $gt: this.clock.now() } },
              { orderBy: { createdAt: 'desc' } },
            );
          if (generation !== this.generation) continue;
          this.rates = rates;
          this.live = this.connected;
        } catch (error) {
          log.warn({ err: error }, 'could not read the current rates; quotes read the database');
          if (generation !== this.generation) continue;
          this.live = false;
        }
        return;
      }
    };
    this.reading = run().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }
}
