import { DriverException, type MikroORM } from '@mikro-orm/postgresql';
import { readRows } from '../../src/db/read-rows';
import { createTestDatabase, openTestOrm } from '../support/db';

/**
 * `readRows` against `em.execute` on a real PostgreSQL: the same rows and types (text,
 * numeric and timestamps as text, nulls, quotes in values), inside a transaction the
 * transaction's own view, errors converted as MikroORM converts them, and the pool's
 * connections all returned.
 */
describe('readRows: em.execute without the ORM layers', () => {
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    await orm.em.getConnection().execute(`create table read_rows_probe (
      id text primary key, amount numeric(20, 2), at timestamptz, note text)`);
    await orm.em.getConnection()
      .execute(`insert into read_rows_probe values ('a', 15000.50, '2026-11-28T01:02:03.456Z', null),
        ('b''quote', 0, '2026-11-28T00:00:00Z', 'it''s')`);
  });
  afterAll(() => orm?.close());

  const sql =
    'select "id", "amount", "at", "note" from "read_rows_probe" where "id" = ? or "id" = ?';

  it('answers what em.execute answers, for values that need quoting too', async () => {
    const em = orm.em.fork();
    const params = ['a', "b'quote"];
    const viaOrm = await em.execute(sql, params);
    const rows = await readRows<Record<string, unknown>>(em, sql, params);
    expect(rows).toEqual(viaOrm);
    expect(rows).toHaveLength(2);
    expect(rows.find((r) => r.id === 'a')).toEqual({
      id: 'a',
      amount: '15000.50',
      at: '2026-11-28 01:02:03.456+00', // MikroORM's connections keep timestamps as text
      note: null,
    });
    // An injection attempt stays a value.
    expect(await readRows(em, sql, ["' or '1'='1", 'x'])).toEqual([]);
  });

  it("inside a transaction, reads the transaction's own uncommitted rows", async () => {
    await orm.em.fork().transactional(async (tx) => {
      await tx.execute(`insert into read_rows_probe values ('c', 1, now(), 'pending')`);
      expect(await readRows(tx, sql, ['c', 'c'])).toHaveLength(1);
      expect(await readRows(orm.em.fork(), sql, ['c', 'c'])).toHaveLength(0);
      await tx.execute(`delete from read_rows_probe where id = 'c'`);
    });
  });

  it("errors come out as MikroORM's, and every connection goes back to the pool", async () => {
    const em = orm.em.fork();
    for (let i = 0; i < 50; i += 1) {
      await expect(readRows(em, 'select * from no_such_table where a = ?', [i])).rejects.toThrow(
        DriverException,
      );
    }
    const rows = await Promise.all(
      Array.from({ length: 100 }, () => readRows(orm.em.fork(), sql, ['a', 'a'])),
    );
    expect(rows.every((r) => r.length === 1)).toBe(true);
  });
});
