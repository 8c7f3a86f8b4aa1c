import { randomBytes } from 'node:crypto';
import type { WebSocket } from 'ws';
import pino from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock, systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { NotificationHub, type ChannelSubscriber } from '../../src/db/notification-hub';
import { DepositEventHub } from '../../src/api/subscriptions/deposit-event-hub';
import { CredentialWatch } from '../../src/api/ws-credentials';
import { SocketRegistry, WS_CLOSE, type OpenSocket } from '../../src/api/ws-sockets';
import { AuthService } from '../../src/merchants/auth.service';
import { RateService } from '../../src/rates/rate.service';
import { KeyEnvironment } from '../../src/domain/key-environment';
import type { DepositNode } from '../../src/api/graphql/types/deposit.type';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { sql } from '../support/sql';
import { eventually } from '../support/stack';

const silent = pino({ level: 'silent' });

/**
 * The gateway's NOTIFY users composed as src/gateway.ts and buildGateway compose them (key
 * cache, rates from memory, socket credential checks, deposit events), all on one
 * NotificationHub, against real PostgreSQL: one LISTEN connection between them, every
 * channel's notices reaching its users, and after the backend is terminated every user's own
 * catch-up (told by `onConnected`) and notices flowing again.
 */
describe('one LISTEN connection per process (real PostgreSQL)', () => {
  const applicationName = `listen-test-${randomBytes(4).toString('hex')}`;
  const clock = new ManualClock('2026-07-01T09:00:00Z');
  let databaseUrl: string;
  let orm: MikroORM;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let notifications: NotificationHub;
  // The gateway's users. The key cache TTL is long: only a notice can drop an entry in time.
  const auth = new AuthService(KeyEnvironment.Sandbox, clock, 86_400, 600_000);
  const rates = new RateService(clock, { feeBps: 50, intervalSeconds: 600, ttlSeconds: 1800 });
  const sockets = new SocketRegistry(
    { socketsPerCredential: 10, subscriptionsPerSocket: 10, subscriptionsPerCredential: 10 },
    clock,
  );
  let credentials: CredentialWatch;
  let depositEvents: DepositEventHub;
  let merchantId: string;
  const deposits: DepositNode[] = [];
  const stops: Array<() => Promise<unknown>> = [];

  /** This database's connections whose last statement was a LISTEN or UNLISTEN. */
  const listening = () =>
    sql<{ application_name: string }>(
      databaseUrl,
      `select application_name from pg_stat_activity
        where datname = current_database() and query ~* '^\\s*(un)?listen\\s'`,
    );
  const ofThisProcess = async () =>
    (
      await sql<{ n: number }>(
        databaseUrl,
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and application_name = $1`,
        [applicationName],
      )
    )[0].n;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    services = createServices(loadConfig({}), clock);
    kit = depositKit(orm, services, clock);
    merchantId = await kit.merchant('Listen Co');
    await kit.rate(); // something for the rates in memory to read at start
    // A long first retry: the test changes things while the connection is down for sure.
    notifications = new NotificationHub({
      databaseUrl,
      applicationName,
      log: silent,
      retryMs: 3000,
    });
    await notifications.start();
    stops.push(() => notifications.stop());
    // Subscribed one after another on the live connection, as the gateway's onReady does.
    const keyWatch = await auth.watchKeyRevocations(notifications);
    stops.push(() => keyWatch.stop());
    await rates.watchPublications({ notifications, em: orm.em, log: silent });
    stops.push(() => rates.memory.stop());
    // Re-checked only on (re)connection: a closed socket came from a notice or a catch-up.
    credentials = new CredentialWatch({
      notifications,
      orm,
      sockets,
      clock,
      log: silent,
      recheckMs: 3_600_000,
    });
    await credentials.start();
    stops.push(() => credentials.stop());
    depositEvents = new DepositEventHub({
      databaseUrl,
      notifications,
      clock: systemClock,
      log: silent,
      applicationName: `${applicationName}-events`,
      retryMs: 100,
    });
    await depositEvents.start();
    stops.push(() => depositEvents.stop());
    void (async () => {
      for await (const deposit of depositEvents.subscribe({ merchantId })) deposits.push(deposit);
    })();
  });
  afterAll(async () => {
    for (const stop of stops.reverse()) await stop();
    await orm?.close();
  });

  const flaggedDeposit = async () => {
    const onramp = await kit.onramp(merchantId);
    const deposit = await kit.transfer(onramp.accountNumber, '5000000'); // over the limit
    expect(deposit.status).toBe('FLAGGED');
    return deposit.id;
  };
  const delivered = (depositId: string) =>
    eventually(async () => (deposits.some((d) => d.depositId === depositId) ? true : undefined));

  /** A key with an open socket on this gateway and an entry in the key cache. */
  const keyInUse = async () => {
    const { keyId, apiKey } = await services.merchants.issueKey(
      orm.em.fork(),
      merchantId,
      KeyEnvironment.Sandbox,
    );
    const closed: number[] = [];
    const socket: OpenSocket = {
      socket: {} as WebSocket, // closed through `close` below, never touched
      principal: { kind: 'secret_key', merchantId, keyId, scopes: ['all'] },
      subscriptions: () => 0,
      close: (code) => closed.push(code),
    };
    sockets.add(socket);
    const before = auth.keyCache.size;
    await auth.authenticate(orm.em.fork(), `Bearer ${apiKey}`);
    expect(auth.keyCache.size).toBe(before + 1);
    const revoke = () =>
      sql(databaseUrl, 'update api_keys set revoked_at = now() where id = $1', [keyId]);
    return { closed, revoke, cachedBefore: before };
  };

  it('holds exactly one LISTEN connection for all its users', async () => {
    const rows = await listening();
    expect(rows).toEqual([{ application_name: applicationName }]);
    expect(await ofThisProcess()).toBe(1);
    expect(auth.keyCache.active).toBe(true);
    expect(rates.memory.active).toBe(true);
  });

  it('hands every channel’s notices to its users', async () => {
    // deposit_events: the subscription gets the new deposit.
    await delivered(await flaggedDeposit());
    // rates_published: the memory serves the newly published rate.
    const published = await kit.rate();
    await eventually(async () => rates.memory.current('USDC')?.id === published.id || undefined);
    // onramp_credential_revoked, two users: the key cache drops the key, its socket closes.
    const key = await keyInUse();
    await key.revoke();
    await eventually(async () => key.closed.length === 1 || undefined);
    expect(key.closed).toEqual([WS_CLOSE.revoked]);
    await eventually(async () => auth.keyCache.size === key.cachedBefore || undefined);
    expect(await listening()).toHaveLength(1);
  });

  it('after its backend is terminated, tells every user, which catches up; notices flow again', async () => {
    const key = await keyInUse();
    const probe = { connected: 0, disconnected: 0, notices: [] as string[] };
    const terminated = await sql(
      databaseUrl,
      `select pg_terminate_backend(pid) from pg_stat_activity
        where datname = current_database() and application_name = $1`,
      [applicationName],
    );
    expect(terminated).toHaveLength(1);
    await eventually(async () => ((await ofThisProcess()) === 0 ? true : undefined));
    // Told onDisconnected: the cache is off, quotes read the database.
    await eventually(async () => (!auth.keyCache.active && !rates.memory.active) || undefined);

    // While nobody listens: a deposit, a revocation and a rate whose notices are lost, and a
    // new subscriber (told when the connection is back, its channel LISTENed on it).
    const missedDeposit = await flaggedDeposit();
    await key.revoke();
    const missedRate = await kit.rate();
    const subscriber: ChannelSubscriber = {
      onNotification: (_channel, payload) => probe.notices.push(payload),
      onConnected: () => (probe.connected += 1),
      onDisconnected: () => (probe.disconnected += 1),
    };
    const probing = await notifications.subscribe('listen_test_probe', subscriber);
    expect(await ofThisProcess()).toBe(0); // all of that happened while nobody listened
    expect(key.closed).toEqual([]);

    // Reconnected: each user catches up in its own way.
    await eventually(async () => probe.connected === 1 || undefined);
    await delivered(missedDeposit); // the deposit hub read the outbox
    await eventually(async () => key.closed.length === 1 || undefined); // sockets re-checked
    await eventually(async () => auth.keyCache.active || undefined); // cache back on
    await eventually(async () => rates.memory.current('USDC')?.id === missedRate.id || undefined);
    expect(probe.disconnected).toBe(0); // it was never told the connection was up before
    expect(await listening()).toEqual([{ application_name: applicationName }]);

    // And notices flow again, on every channel, over the one new connection.
    await delivered(await flaggedDeposit());
    const next = await keyInUse();
    await next.revoke();
    await eventually(async () => next.closed.length === 1 || undefined);
    const published = await kit.rate();
    await eventually(async () => rates.memory.current('USDC')?.id === published.id || undefined);
    await sql(databaseUrl, "select pg_notify('listen_test_probe', 'after')");
    await eventually(async () => probe.notices.includes('after') || undefined);
    await probing.close();
    expect(await listening()).toHaveLength(1);
  });

  it('LISTENs a channel subscribed on the live connection at once, and UNLISTENs it when its last subscriber leaves', async () => {
    const heard: string[] = [];
    const connected: string[] = [];
    const subscribe = (channel: string) =>
      notifications.subscribe(channel, {
        onNotification: (c, payload) => heard.push(`${c}:${payload}`),
        onConnected: () => connected.push(channel),
      });
    const late = await subscribe('listen_test_late');
    expect(connected).toEqual(['listen_test_late']); // told before subscribe resolved
    await sql(databaseUrl, "select pg_notify('listen_test_late', 'one')");
    await eventually(async () => heard.includes('listen_test_late:one') || undefined);

    const marker = await subscribe('listen_test_marker');
    await late.close();
    // Notices on one connection arrive in commit order: once the marker's is here, a notice on
    // the closed channel sent before it would have been too.
    await sql(databaseUrl, "select pg_notify('listen_test_late', 'two')");
    await sql(databaseUrl, "select pg_notify('listen_test_marker', 'm')");
    await eventually(async () => heard.includes('listen_test_marker:m') || undefined);
    expect(heard).not.toContain('listen_test_late:two');
    await marker.close();
    expect(await listening()).toEqual([{ application_name: applicationName }]);
  });

  it('stop closes its one connection', async () => {
    await notifications.stop();
    await eventually(async () => ((await ofThisProcess()) === 0 ? true : undefined));
    expect(await listening()).toEqual([]);
  });
});
