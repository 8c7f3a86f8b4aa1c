import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, openTestOrm } from '../support/db';

const MIGRATION = 'Migration20261125100200_webhook_endpoints';

/**
 * `Migration20261125100200_webhook_endpoints` on a database that has the single endpoint of
 * before: the endpoint gets an id and every event, its deliveries name it; down() goes back.
 */
describe('webhook endpoints migration (real PostgreSQL)', () => {
  let orm: MikroORM;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
  });
  afterAll(async () => {
    await orm?.close();
  });

  const sql = <T>(query: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(query, params);

  it('gives an existing endpoint an id and ["*"], and its deliveries their endpoint', async () => {
    await orm.getMigrator().down(MIGRATION);
    const now = new Date('2026-11-20T10:00:00Z');
    await sql(
      `insert into merchants (id, name, status, created_at, updated_at)
       values ('mer_migration', 'Before', 'ACTIVE', ?, ?)`,
      [now, now],
    );
    await sql(
      `insert into webhook_endpoints (merchant_id, url, secret, enabled, created_at, updated_at)
       values ('mer_migration', 'https://hooks.example.com/x', 'whsec_old', true, ?, ?)`,
      [now, now],
    );
    // An event written before: the per-merchant trigger owes it to the one endpoint.
    await sql(
      `insert into events (id, kind, merchant_id, snapshot, created_at)
       values ('evt_before', 'withdrawal.completed', 'mer_migration', '{}'::jsonb, ?)`,
      [now],
    );

    await orm.getMigrator().up(MIGRATION);

    const [endpoint] = await sql<Record<string, unknown>>(
      `select id, enabled_events, description, secret, url from webhook_endpoints
        where merchant_id = 'mer_migration'`,
    );
    expect(endpoint).toMatchObject({
      enabled_events: ['*'],
      description: null,
      secret: 'whsec_old',
      url: 'https://hooks.example.com/x',
    });
    expect(endpoint.id).toMatch(/^we_[0-9a-f]{32}$/);
    const deliveries = await sql<{ endpoint_id: string }>(
      `select endpoint_id from webhook_deliveries where event_id = 'evt_before'`,
    );
    expect(deliveries).toEqual([{ endpoint_id: endpoint.id }]);

    // After: a second endpoint may exist, and a new event reaches both.
    await sql(
      `insert into webhook_endpoints (id, merchant_id, url, enabled_events, secret, enabled,
                                      created_at, updated_at)
       values ('we_second', 'mer_migration', 'https://hooks.example.com/y',
               '{withdrawal.failed}', 'whsec_2', true, ?, ?)`,
      [now, now],
    );
    await sql(
      `insert into events (id, kind, merchant_id, snapshot, created_at)
       values ('evt_after', 'withdrawal.failed', 'mer_migration', '{}'::jsonb, ?)`,
      [now],
    );
    const after = await sql<{ endpoint_id: string }>(
      `select endpoint_id from webhook_deliveries where event_id = 'evt_after' order by 1`,
    );
    expect(after.map((r) => r.endpoint_id).sort()).toEqual([endpoint.id, 'we_second'].sort());
  });

  it('down() keeps the first endpoint per merchant; up() again', async () => {
    await orm.getMigrator().down(MIGRATION);
    const rows = await sql<{ merchant_id: string; url: string }>(
      `select merchant_id, url from webhook_endpoints where merchant_id = 'mer_migration'`,
    );
    expect(rows).toHaveLength(1);
    await orm.getMigrator().up(MIGRATION);
    const [row] = await sql<{ n: number }>(
      `select count(*)::int as n from webhook_endpoints where merchant_id = 'mer_migration'`,
    );
    expect(row.n).toBe(1);
  });
});
