import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { PostgresRateLimitStore } from '../../src/api/rate-limit';
import { pruneRateLimitWindows, readRateLimitHits } from '../../src/system';
import { createTestDatabase, openTestOrm } from '../support/db';

function incr(
  store: PostgresRateLimitStore,
  key: string,
): Promise<{ current: number; ttl: number }> {
  return new Promise((resolve, reject) =>
    store.incr(key, (error, result) => (error ? reject(error) : resolve(result!))),
  );
}

describe('rate-limit counters shared through PostgreSQL', () => {
  let ormA: MikroORM;
  let ormB: MikroORM;

  beforeAll(async () => {
    const url = await createTestDatabase();
    [ormA, ormB] = await Promise.all([openTestOrm(url), openTestOrm(url)]);
  });
  afterAll(async () => {
    await Promise.all([ormA.close(), ormB.close()]);
  });

  it('counts hits from two gateway instances in one window, exactly, under concurrency', async () => {
    const clock = new ManualClock('2026-06-01T12:00:10Z');
    const a = new PostgresRateLimitStore(ormA, clock, 60_000);
    const b = new PostgresRateLimitStore(ormB, clock, 60_000);
    const results = await Promise.all(
      Array.from({ length: 60 }, (_, i) => incr(i % 2 === 0 ? a : b, 'key:k1')),
    );
    expect(results.map((r) => r.current).sort((x, y) => x - y)).toEqual(
      Array.from({ length: 60 }, (_, i) => i + 1),
    );
    expect(results[0].ttl).toBe(50_000);
  });

  it('starts a new window each minute and keeps keys apart', async () => {
    const clock = new ManualClock('2026-06-01T13:00:59Z');
    const store = new PostgresRateLimitStore(ormA, clock, 60_000);
    expect((await incr(store, 'key:k2')).current).toBe(1);
    expect((await incr(store, 'key:k2')).current).toBe(2);
    expect((await incr(store, 'key:k3')).current).toBe(1);
    clock.advance(1000);
    const next = await incr(store, 'key:k2');
    expect(next).toEqual({ current: 1, ttl: 60_000 });
  });

  it('prunes only the windows that started before the cutoff', async () => {
    const clock = new ManualClock('2026-06-02T12:00:10Z');
    const store = new PostgresRateLimitStore(ormA, clock, 60_000);
    await incr(store, 'key:prune');
    clock.advance(2 * 60 * 60 * 1000);
    await incr(store, 'key:prune');
    const em = ormA.em.fork();
    await pruneRateLimitWindows(em, new Date('2026-06-02T13:00:00Z'));
    expect(await readRateLimitHits(em, 'key:prune', new Date('2026-06-02T12:00:00Z'))).toBe(0);
    expect(await readRateLimitHits(em, 'key:prune', new Date('2026-06-02T14:00:00Z'))).toBe(1);
  });
});
