import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import pino from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock, systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DepositEventHub } from '../../src/api/subscriptions/deposit-event-hub';
import { NotificationHub } from '../../src/db/notification-hub';
import type { DepositNode } from '../../src/api/graphql/types/deposit.type';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { eventually } from '../support/stack';

const FLAG_REASON = 'Exceeds the per-deposit limit of 1,000 USD';

/** Collects what a subscription yields until it ends. */
function collect(iterator: AsyncIterableIterator<DepositNode>) {
  const got: DepositNode[] = [];
  const done = (async () => {
    for await (const deposit of iterator) got.push(deposit);
  })();
  return { got, done, iterator };
}

/**
 * The event hub on its own, against real PostgreSQL: what reaches a subscriber, and that
 * nothing is lost or doubled across a reconnect, including a transaction with a lower seq
 * that commits after a higher one while the listener is away.
 */
describe('deposit event hub (real PostgreSQL)', () => {
  let databaseUrl: string;
  let orm: MikroORM;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let hub: DepositEventHub;
  let notifications: NotificationHub;
  const applicationName = `hub-test-${randomBytes(4).toString('hex')}`;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    const clock = new ManualClock('2026-07-01T09:00:00Z');
    services = createServices(loadConfig({}), clock);
    kit = depositKit(orm, services, clock);
    // The process's one LISTEN connection, found by its application name below.
    notifications = new NotificationHub({
      databaseUrl,
      applicationName,
      log: pino({ level: 'silent' }),
    });
    await notifications.start();
    hub = new DepositEventHub({
      databaseUrl,
      notifications,
      clock: systemClock,
      log: pino({ level: 'silent' }),
      applicationName,
      retryMs: 100,
    });
    await hub.start();
  });
  afterAll(async () => {
    await hub?.stop();
    await notifications?.stop();
    await orm?.close();
  });

  async function sql(text: string, params: unknown[] = []) {
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(text, params)).rows;
    } finally {
      await client.end();
    }
  }

  /** A FLAGGED deposit (over the per-deposit limit): its status can go to PENDING_FX and back. */
  async function flaggedDeposit(merchantId: string) {
    const onramp = await kit.onramp(merchantId);
    const deposit = await kit.transfer(onramp.accountNumber, '5000000');
    expect(deposit.status).toBe('FLAGGED');
    return deposit;
  }

  /**
   * FLAGGED deposits whose creation the hub has already handled (a sentinel subscriber saw
   * it), so subscribers made afterwards do not get it: a notice that arrives just after a
   * subscribe is delivered, whenever it committed.
   */
  async function existingFlaggedDeposits(merchantId: string, count: number) {
    const sentinel = collect(hub.subscribe({ merchantId }));
    const deposits = [];
    for (let i = 0; i < count; i += 1) deposits.push(await flaggedDeposit(merchantId));
    await eventually(async () => (sentinel.got.length >= count ? true : undefined));
    await sentinel.iterator.return?.();
    await sentinel.done;
    return deposits;
  }

  /** Two status events (PENDING_FX, FLAGGED), leaving the deposit as it was (and its ledger right). */
  const flipTwice = `
    update deposits set status = 'PENDING_FX', flag_reason = null where id = $1;
    update deposits set status = 'FLAGGED', flag_reason = '${FLAG_REASON}' where id = $1;`;

  async function flip(client: Client, depositId: string) {
    for (const statement of flipTwice.split(';').filter((s) => s.trim())) {
      await client.query(statement, [depositId]);
    }
  }

  async function listeners(): Promise<number> {
    const [row] = await sql(
      'select count(*)::int as n from pg_stat_activity where application_name = $1',
      [applicationName],
    );
    return row.n;
  }

  it('a subscriber gets its merchant’s changes from when it subscribed, filtered; return() unregisters', async () => {
    const merchant = await kit.merchant('Hub Co');
    const other = await kit.merchant('Other Co');
    const [before] = await existingFlaggedDeposits(merchant, 1);
    const all = collect(hub.subscribe({ merchantId: merchant }));
    const one = collect(hub.subscribe({ merchantId: merchant, depositId: before.id }));
    const theirs = collect(hub.subscribe({ merchantId: other }));
    expect(hub.subscriberCount).toBe(3);

    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    const later = await flaggedDeposit(merchant);
    await flip(client, before.id);
    await client.end();

    await eventually(async () => (all.got.length >= 3 && one.got.length >= 2 ? true : undefined));
    expect(all.got.map((d) => [d.depositId, d.status])).toEqual([
      [later.id, 'FLAGGED'],
      [before.id, 'PENDING_FX'],
      [before.id, 'FLAGGED'],
    ]);
    expect(one.got.map((d) => d.status)).toEqual(['PENDING_FX', 'FLAGGED']);
    expect(all.got[0]).toMatchObject({
      merchantId: merchant,
      onrampId: later.onrampId,
      amountNgn: '5000000.00',
      flagReason: FLAG_REASON,
    });
    expect(theirs.got).toEqual([]);

    await all.iterator.return?.();
    await one.iterator.return?.();
    await theirs.iterator.return?.();
    await Promise.all([all.done, one.done, theirs.done]);
    expect(hub.subscriberCount).toBe(0);
  });

  it('catches up after its LISTEN connection drops, including a lower seq committed after a higher one', async () => {
    const merchant = await kit.merchant('Reconnect Co');
    const [early, late, missed] = await existingFlaggedDeposits(merchant, 3);
    const sub = collect(hub.subscribe({ merchantId: merchant }));

    // `early` takes its seqs first but commits last; `late` commits while we still listen.
    const slow = new Client({ connectionString: databaseUrl });
    await slow.connect();
    await slow.query('begin');
    await flip(slow, early.id);
    const fast = new Client({ connectionString: databaseUrl });
    await fast.connect();
    await flip(fast, late.id);
    await fast.end();
    await eventually(async () => (sub.got.length >= 2 ? true : undefined));

    // Drop the hub's LISTEN connection; commit `early` and change `missed` while it is away.
    await sql(
      'select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1',
      [applicationName],
    );
    await eventually(async () => ((await listeners()) === 0 ? true : undefined));
    await slow.query('commit');
    await slow.end();
    const other = new Client({ connectionString: databaseUrl });
    await other.connect();
    await flip(other, missed.id);
    await other.end();
    expect(await listeners()).toBe(0); // all of that happened while nobody listened

    await eventually(async () => (sub.got.length >= 6 ? true : undefined));
    await new Promise((r) => setTimeout(r, 300)); // room for a duplicate to show up
    expect(await listeners()).toBe(1);
    const byDeposit = (id: string) =>
      sub.got.filter((d) => d.depositId === id).map((d) => d.status);
    expect(sub.got).toHaveLength(6);
    for (const deposit of [early, late, missed]) {
      expect(byDeposit(deposit.id)).toEqual(['PENDING_FX', 'FLAGGED']);
    }
    await sub.iterator.return?.();
    await sub.done;
  });

  it('a subscriber that stops pulling is cut off at its queue limit; the others are not held up', async () => {
    const merchant = await kit.merchant('Slow Co');
    const deposit = await flaggedDeposit(merchant);
    const small = new DepositEventHub({
      databaseUrl,
      notifications, // a second subscriber on the same connection
      clock: systemClock,
      log: pino({ level: 'silent' }),
      applicationName: `${applicationName}-small`,
      queueLimit: 5,
    });
    await small.start();
    try {
      let overflowed = 0;
      const stuck = small.subscribe(
        { merchantId: merchant },
        { onOverflow: () => (overflowed += 1) },
      );
      const healthy = collect(small.subscribe({ merchantId: merchant }));
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      for (let i = 0; i < 4; i += 1) await flip(client, deposit.id);
      await client.end();
      await eventually(async () => (healthy.got.length >= 8 ? true : undefined));
      expect(overflowed).toBe(1);
      expect(small.subscriberCount).toBe(1);
      await expect(stuck.next()).rejects.toMatchObject({ code: 'service_unavailable' });
      await healthy.iterator.return?.();
      await healthy.done;
      expect(small.subscriberCount).toBe(0);
    } finally {
      await small.stop();
    }
  });
});
