import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import pino from 'pino';
import { ManualClock } from '../../src/clock';
import { RateService } from '../../src/rates/rate.service';
import { GATEWAY_LISTEN_APPLICATION_NAME, NotificationHub } from '../../src/db/notification-hub';
import type { RateSource } from '../../src/adapters/fx/rate-source';
import { dec } from '../../src/domain/money';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { createTestDatabase, openTestOrm } from '../support/db';

const fixedSource: RateSource = {
  name: 'fixed',
  marketRates: async () => ({ USD: dec('1500'), USDC: dec('1500'), USDT: dec('1502.5') }),
};

async function within(ms: number, check: () => Promise<boolean> | boolean): Promise<void> {
  const started = performance.now();
  for (;;) {
    if (await check()) return;
    if (performance.now() - started > ms) throw new Error(`not within ${ms} ms`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/**
 * The gateway's rates from memory (production: no per-merchant scenarios) against a real
 * PostgreSQL: read at start and on the NOTIFY the `rates` trigger sends, never an expired
 * rate by the injected clock, the database whenever the LISTEN is down.
 */
describe('rates from memory (real PostgreSQL, real LISTEN)', () => {
  let orm: MikroORM;
  let admin: Client;
  const clock = new ManualClock('2026-03-01T00:00:00Z');
  const settings = { feeBps: 50, intervalSeconds: 600, ttlSeconds: 1800 };
  /** The gateway's service (memory on) and the job runner's (publishes). */
  const gateway = new RateService(clock, settings);
  const runner = new RateService(clock, settings);
  let notifications: NotificationHub;

  /** An em whose every use fails: an answer through it came from memory. */
  const noDatabase = () =>
    new Proxy(orm.em, {
      get: () => {
        throw new Error('the database was used');
      },
    }) as EntityManager;

  const publish = async () => {
    clock.advance(settings.intervalSeconds * 1000); // past the recency guard
    const outcome = await runner.publish(orm.em.fork(), fixedSource);
    if (!outcome.published) throw new Error('not published');
    return outcome.rates.find((r) => r.to === 'USDC')!;
  };

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    admin = new Client({ connectionString: databaseUrl });
    await admin.connect();
    await publish();
    // The gateway's one LISTEN connection, as src/gateway.ts makes it.
    notifications = new NotificationHub({
      databaseUrl,
      applicationName: GATEWAY_LISTEN_APPLICATION_NAME,
      log: pino({ level: 'silent' }),
    });
    await notifications.start();
    await gateway.watchPublications({ notifications, em: orm.em, log: pino({ level: 'silent' }) });
  });
  afterAll(async () => {
    await gateway.memory.stop();
    await notifications?.stop();
    await admin?.end();
    await orm?.close();
  });

  it('answers from memory the rate read at start', async () => {
    expect(gateway.memory.active).toBe(true);
    const fromDatabase = await runner.current(orm.em.fork(), { from: 'NGN', to: 'USDC' });
    const held = await gateway.current(noDatabase(), { from: 'NGN', to: 'USDC' }, 'mer_any');
    expect(held.id).toBe(fromDatabase.id);
    expect(held).toMatchObject({ rate: fromDatabase.rate, expiresAt: fromDatabase.expiresAt });
  });

  it('serves a newly published rate once its NOTIFY arrives (well within a second)', async () => {
    const published = await publish();
    await within(1_000, async () => {
      const held = await gateway.current(noDatabase(), { from: 'NGN', to: 'USDC' });
      return held.id === published.id;
    });
  });

  it('never serves a rate the injected clock says has expired', async () => {
    const published = await publish();
    await within(1_000, async () => gateway.memory.current('USDC')?.id === published.id);
    clock.set(new Date(published.expiresAt.getTime() + 1));
    expect(gateway.memory.current('USDC')).toBeUndefined();
    // Nothing valid held: the database answers (and finds nothing valid either).
    const error = await gateway
      .current(orm.em.fork(), { from: 'NGN', to: 'USDC' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.RateUnavailable);
  });

  it('reads the database while the LISTEN connection is down', async () => {
    await publish();
    await within(1_000, () => gateway.memory.active);
    await admin.query(
      // This database's listener only: other test files' processes share the server.
      `select pg_terminate_backend(pid) from pg_stat_activity
        where application_name = $1 and datname = current_database()`,
      [GATEWAY_LISTEN_APPLICATION_NAME],
    );
    await within(1_000, () => !gateway.memory.active);
    // Published while nobody listens: the answer is the database's, the newest.
    const published = await publish();
    const current = await gateway.current(orm.em.fork(), { from: 'NGN', to: 'USDC' });
    expect(current.id).toBe(published.id);
    await expect(gateway.current(noDatabase(), { from: 'NGN', to: 'USDC' })).rejects.toThrow(
      'the database was used',
    );
    // Reconnected (1 s later), it reads the rates again and answers from memory.
    await within(5_000, () => gateway.memory.active);
    expect((await gateway.current(noDatabase(), { from: 'NGN', to: 'USDC' })).id).toBe(
      published.id,
    );
  });
});
