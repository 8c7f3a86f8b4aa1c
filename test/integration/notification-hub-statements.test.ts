import pino from 'pino';
import { Client } from 'pg';
import { NotificationHub } from '../../src/db/notification-hub';
import { createTestDatabase } from '../support/db';
import { sql } from '../support/sql';
import { eventually } from '../support/stack';

/**
 * The hub's LISTEN connection sends one statement at a time: pg deprecates a query sent while
 * another is still running on the same client (a warning today, an error in pg 9), and the
 * gateway subscribes many channels at once at start.
 */
describe('the notification hub sends one statement at a time (real PostgreSQL)', () => {
  const original = Client.prototype.query;
  const inFlight = new Map<Client, number>();
  let mostAtOnce = 0;

  beforeAll(() => {
    // Counts the statements each client has running; the hub's are the only clients here.
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const running = (inFlight.get(this) ?? 0) + 1;
      inFlight.set(this, running);
      mostAtOnce = Math.max(mostAtOnce, running);
      const done = () => inFlight.set(this, (inFlight.get(this) ?? 1) - 1);
      const result = (original as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      result.then(done, done);
      return result;
    } as typeof Client.prototype.query;
  });

  afterAll(() => {
    Client.prototype.query = original;
  });

  it('subscribes 30 channels at once and unsubscribes them at once, one statement at a time', async () => {
    const databaseUrl = await createTestDatabase();
    const hub = new NotificationHub({
      databaseUrl,
      applicationName: 'hub-statements-test',
      log: pino({ level: 'silent' }),
    });
    await hub.start();
    try {
      const heard: string[] = [];
      const channels = Array.from({ length: 30 }, (_, i) => `hub_statements_${i}`);
      const subscriptions = await Promise.all(
        channels.map((channel) => hub.subscribe(channel, { onNotification: (c) => heard.push(c) })),
      );
      // Every LISTEN really happened: a NOTIFY on the last channel reaches its subscriber.
      await sql(databaseUrl, `notify hub_statements_29, 'x'`);
      await eventually(
        async () => (heard.includes('hub_statements_29') ? true : undefined),
        10_000,
      );
      await Promise.all(subscriptions.map((s) => s.close()));
      expect(mostAtOnce).toBe(1);
    } finally {
      await hub.stop();
    }
  });
});
