import type { MikroORM } from '@mikro-orm/postgresql';
import { Client } from 'pg';
import { lockDailyVolume } from '../../src/deposits/daily-volume';
import { createTestDatabase, openTestOrm } from '../support/db';
import { sql } from '../support/sql';

/**
 * The daily totals' two rows (a merchant's, then the system's) are taken in one order by
 * every transaction, also on a merchant's first deposit of a day, when its row does not exist
 * yet. The old way (select ... for update, then insert what was missing) could lock the system
 * row alone, because its snapshot missed a merchant row created meanwhile, and then wait for
 * the merchant row behind a transaction that held it and waited for the system row:
 * `deadlock detected` in the 15-transfer race. This replays that interleaving step by step.
 */
describe('daily totals: one lock order, no deadlock on a merchant first day (real PostgreSQL)', () => {
  let orm: MikroORM;
  let url: string;
  let watcher: Client;
  const day = '2026-07-01';

  beforeAll(async () => {
    url = await createTestDatabase();
    orm = await openTestOrm(url);
    watcher = new Client({ connectionString: url });
    await watcher.connect();
  });
  afterAll(async () => {
    await watcher.end();
    await orm.close();
  });

  /** Sessions of this database waiting for a lock. */
  async function waiting(): Promise<number> {
    const { rows } = await watcher.query<{ n: number }>(
      `select count(*)::int as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'`,
    );
    return rows[0].n;
  }

  async function until(what: () => Promise<boolean>): Promise<void> {
    const deadline = Date.now() + 20_000;
    while (!(await what())) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the interleaving');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  function lockIn(scope: string) {
    return orm.em.fork().transactional((tx) => lockDailyVolume(tx, scope, day));
  }

  it('a merchant first totals of a day, locked while the system row is held, finish without a deadlock', async () => {
    // The day's system row exists (another merchant counted first).
    await lockIn('mer_other');
    // 1. Another merchant's transaction holds the system row.
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let held!: () => void;
    const holding = new Promise<void>((resolve) => (held = resolve));
    const t1 = orm.em.fork().transactional(async (tx) => {
      await lockDailyVolume(tx, 'mer_other', day);
      held();
      await gate;
    });
    await holding;
    // 2. Merchant A's first transfer of the day waits for the system row.
    const t2 = lockIn('mer_a');
    await until(async () => (await waiting()) >= 1);
    // 3. Another transfer of merchant A creates A's row (committed at once where nothing
    //    holds it, else it waits for the transaction creating it).
    let inserted = false;
    const p3 = sql(
      url,
      "insert into deposit_daily_volume (scope, day, usd) values ('mer_a', $1, 0) on conflict do nothing",
      [day],
    ).then(() => (inserted = true));
    await until(async () => inserted || (await waiting()) >= 2);
    // 4. A third transfer of merchant A locks the totals (A's row, then the system's).
    const before = await waiting();
    const t4 = lockIn('mer_a');
    await until(async () => (await waiting()) > before);
    // 5. The system row is let go: every transaction must get through.
    release();
    const outcomes = await Promise.allSettled([t1, t2, p3, t4]);
    const refused = outcomes
      .filter((o): o is PromiseRejectedResult => o.status === 'rejected')
      .map((o) => String((o.reason as Error).message));
    expect(refused).toEqual([]);
    const rows = await sql<{ scope: string; usd: string }>(
      url,
      'select scope, usd::text as usd from deposit_daily_volume where day = $1 order by scope',
      [day],
    );
    expect(rows.map((r) => r.scope)).toEqual(['mer_a', 'mer_other', 'system']);
  });
});
