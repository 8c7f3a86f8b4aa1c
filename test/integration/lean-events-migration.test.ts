import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices } from '../../src/container';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

const MIGRATION = 'Migration20261125000400_lean_events';

/** `Migration20261125000400_lean_events` goes down to the per-row triggers and back up. */
describe('lean events migration (real PostgreSQL)', () => {
  let orm: MikroORM;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    // One clock for the file: each rate published moves it past the recency guard.
    const clock = new ManualClock(new Date());
    kit = depositKit(orm, createServices(loadConfig({}), clock), clock);
  });
  afterAll(async () => {
    await orm?.close();
  });

  /** The outbox triggers: name, per row or statement, with transition tables, columns, WHEN. */
  async function outboxTriggers() {
    return orm.em.fork().getConnection().execute<
      Array<{ trigger: string; per_row: boolean; tables: boolean; columns: boolean; when: boolean }>
    >(`
      select tgname as trigger, (tgtype & 1) = 1 as per_row,
             (tgoldtable is not null or tgnewtable is not null) as tables,
             cardinality(tgattr::int2[]) > 0 as columns,
             tgqual is not null as when
        from pg_trigger
       where tgrelid in ('deposits'::regclass, 'events'::regclass) and not tgisinternal
       order by tgname`);
  }

  async function transferWritesItsEvent(): Promise<void> {
    const onramp = await kit.onramp(await kit.merchant());
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(await kit.events(deposit.id)).toEqual([
      { kind: 'deposit.created', status: 'PENDING_FX' },
    ]);
  }

  const lean = [
    {
      trigger: 'deposits_created_events',
      per_row: false,
      tables: true,
      columns: false,
      when: false,
    },
    {
      trigger: 'deposits_identity_immutable',
      per_row: true,
      tables: false,
      columns: true,
      when: false,
    },
    { trigger: 'deposits_moved_events', per_row: false, tables: true, columns: false, when: false },
    {
      trigger: 'events_webhook_delivery',
      per_row: true,
      tables: false,
      columns: false,
      when: true,
    },
  ];

  it('is applied: statement-level deposit events, identity checked only when named', async () => {
    expect(await outboxTriggers()).toEqual(lean);
    await transferWritesItsEvent();
  });

  it('down() restores the per-row triggers, and up() brings the lean ones back', async () => {
    await orm.getMigrator().down(MIGRATION);
    expect(await outboxTriggers()).toEqual([
      {
        trigger: 'deposits_identity_immutable',
        per_row: true,
        tables: false,
        columns: false,
        when: false,
      },
      {
        trigger: 'deposits_status_event',
        per_row: true,
        tables: false,
        columns: true,
        when: false,
      },
      {
        trigger: 'events_webhook_delivery',
        per_row: true,
        tables: false,
        columns: false,
        when: false,
      },
    ]);
    await transferWritesItsEvent();

    await orm.getMigrator().up(MIGRATION);
    expect(await outboxTriggers()).toEqual(lean);
    await transferWritesItsEvent();
  });
});
