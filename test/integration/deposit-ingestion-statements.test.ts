import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import type { InboundTransfer } from '../../src/deposits/deposit-ingestion.service';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

/**
 * What one ingestion costs the database, counted as the statements the gateway sends (knex
 * query events): a fixed number, whatever the onramp. The ledger entry is counted apart,
 * because the ledger module decides how many statements one entry takes.
 */
describe('deposit ingestion: a small, fixed number of statements (real PostgreSQL)', () => {
  let orm: MikroORM;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  const statements: string[] = [];

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    const clock = new ManualClock('2026-07-01T09:00:00Z');
    services = createServices(loadConfig({}), clock);
    kit = depositKit(orm, services, clock);
    await kit.rate();
    orm.em
      .getConnection()
      .getKnex()
      .on('query', (query: { sql: string }) => statements.push(query.sql));
  });
  afterAll(() => orm.close());

  /** The statements one `receive` sent: the ingestion's own, and the ledger's. */
  async function counted(transfer: InboundTransfer) {
    statements.length = 0;
    const outcome = await services.ingestion.receive(orm.em.fork(), transfer);
    const sent = [...statements];
    const ledger = sent.filter((sql) => /\bledger_(accounts|transactions|postings)\b/.test(sql));
    const own = sent.filter((sql) => !ledger.includes(sql)).map(shape);
    return { outcome, own, ledger };
  }

  /** A statement's first words, enough to tell which one it is. */
  function shape(sql: string): string {
    const text = sql.replace(/\s+/g, ' ').trim().toLowerCase();
    if (/^(begin|commit|rollback)/.test(text)) return text.replace(/;$/, '');
    if (text.startsWith('with target as')) return 'read arrival';
    if (text.startsWith('insert into deposits ')) return 'insert deposit';
    if (text.startsWith('insert into deposit_daily_volume')) return 'count daily totals';
    if (text.startsWith('insert into unmatched_transfers')) return 'insert unmatched';
    if (text.startsWith('with completed as')) return 'complete throwaway';
    return text.slice(0, 60);
  }

  /** What one ledger entry costs today (one statement once the ledger writes entries so). */
  const LEDGER_ENTRY_MAX = 4;

  it('a PERMANENT onramp: begin, one read, the insert, the ledger entry, the daily totals, commit', async () => {
    const onramp = await kit.onramp(await kit.merchant(), 'PERMANENT');
    const { outcome, own, ledger } = await counted({
      accountNumber: onramp.accountNumber,
      amountNgn: '16000',
      bankReference: 'COUNT-PERMANENT',
    });
    expect(outcome).toMatchObject({ kind: 'deposit', created: true });
    expect(own).toEqual([
      'begin',
      'read arrival',
      'insert deposit',
      'count daily totals',
      'commit',
    ]);
    expect(ledger.length).toBeGreaterThan(0);
    expect(ledger.length).toBeLessThanOrEqual(LEDGER_ENTRY_MAX);
  });

  it('a THROWAWAY onramp adds one statement: its completion and the account release', async () => {
    const onramp = await kit.onramp(await kit.merchant(), 'THROWAWAY');
    const { own, ledger } = await counted({
      accountNumber: onramp.accountNumber,
      amountNgn: '16000',
      bankReference: 'COUNT-THROWAWAY',
    });
    expect(own).toEqual([
      'begin',
      'read arrival',
      'insert deposit',
      'complete throwaway',
      'count daily totals',
      'commit',
    ]);
    expect(ledger.length).toBeLessThanOrEqual(LEDGER_ENTRY_MAX);
  });

  it('a FAILED deposit (below the minimum) does not touch the daily totals', async () => {
    const onramp = await kit.onramp(await kit.merchant(), 'EPHEMERAL');
    const { outcome, own } = await counted({
      accountNumber: onramp.accountNumber,
      amountNgn: '100',
      bankReference: 'COUNT-FAILED',
    });
    expect(outcome).toMatchObject({ kind: 'deposit', deposit: { status: 'FAILED' } });
    expect(own).toEqual(['begin', 'read arrival', 'insert deposit', 'commit']);
  });

  it('a repeated reference is answered from the one read, and an unmatched transfer costs its insert', async () => {
    const onramp = await kit.onramp(await kit.merchant(), 'PERMANENT');
    const transfer = {
      accountNumber: onramp.accountNumber,
      amountNgn: '16000',
      bankReference: 'COUNT-REPEAT',
    };
    await services.ingestion.receive(orm.em.fork(), transfer);
    const repeat = await counted(transfer);
    expect(repeat.outcome).toMatchObject({ kind: 'deposit', created: false });
    expect(repeat.own).toEqual(['begin', 'read arrival', 'commit']);
    expect(repeat.ledger).toEqual([]);

    const unmatched = await counted({
      accountNumber: '9999999999',
      amountNgn: '5000',
      bankReference: 'COUNT-UNMATCHED',
    });
    expect(unmatched.outcome).toEqual({ kind: 'unmatched', created: true });
    expect(unmatched.own).toEqual(['begin', 'read arrival', 'insert unmatched', 'commit']);
    expect(unmatched.ledger.length).toBeLessThanOrEqual(LEDGER_ENTRY_MAX);
  });
});
