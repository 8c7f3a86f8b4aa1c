import { Client } from 'pg';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { dec } from '../../src/domain/money';
import { checkLedger } from '../../src/reconciliation/ledger-check';
import {
  merchantAccount,
  OPERATOR,
  transfer,
  type LedgerAccountSpec,
} from '../../src/domain/ledger';
import { LedgerService, type LedgerEntry } from '../../src/ledger/ledger.service';
import { createTestDatabase, forgetTestDatabase, openTestOrm } from '../support/db';

/**
 * LedgerService writes ledger transactions in one statement, and the database (a
 * statement-level trigger on ledger_postings) enforces the ledger's invariants for any
 * writer. The entries here credit merchants with no deposit behind them, so the database is
 * left out of the after-all reconciliation; the ledger's own invariants are checked here.
 */
const LEDGER_OWN_INVARIANTS = [
  'transactions_balance',
  'posting_currency_matches_account',
  'maintained_balance_matches_postings',
  'maintained_balance_non_negative',
];

describe('ledger postings', () => {
  let url: string;
  let orm: MikroORM;
  const clock = new ManualClock('2026-09-01T10:00:00Z');
  const ledger = new LedgerService(clock);
  const merchants = ['mer_post_a', 'mer_post_b'];
  const available = (m: string) => merchantAccount(m, 'usd_available');

  beforeAll(async () => {
    url = await createTestDatabase();
    forgetTestDatabase(url);
    orm = await openTestOrm(url);
    for (const id of merchants) {
      await sql(
        `insert into merchants (id, name, status, created_at, updated_at)
         values (?, ?, 'ACTIVE', now(), now())`,
        [id, id],
      );
    }
  });
  afterAll(async () => {
    await orm.close();
  });

  function sql<T = Record<string, string>>(query: string, params: unknown[] = []): Promise<T[]> {
    return orm.em.fork().getConnection().execute<T[]>(query, params);
  }
  const inTransaction = <T>(fn: (tx: EntityManager) => Promise<T>): Promise<T> =>
    orm.em.fork().transactional(fn);
  const postAll = (entries: LedgerEntry[]) => inTransaction((tx) => ledger.postAll(tx, entries));
  const credit = (account: LedgerAccountSpec, amount: string): LedgerEntry => ({
    kind: 'adjustment',
    memo: 'test credit',
    postings: transfer(OPERATOR.usdTreasury, account, dec(amount)),
  });
  const debit = (account: LedgerAccountSpec, amount: string): LedgerEntry => ({
    kind: 'adjustment',
    memo: 'test debit',
    postings: transfer(account, OPERATOR.usdTreasury, dec(amount)),
  });
  const balanceOf = async (account: LedgerAccountSpec) =>
    (
      await sql<{ balance: string | null }>(
        'select balance::text as balance from ledger_accounts where id = ?',
        [account.id],
      )
    )[0]?.balance ?? null;
  const counts = async () =>
    (
      await sql<{ transactions: string; postings: string }>(
        `select (select count(*) from ledger_transactions)::text as transactions,
                (select count(*) from ledger_postings)::text as postings`,
      )
    )[0];
  async function ownViolations() {
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const all = await checkLedger(async (q, p) => (await client.query(q, p)).rows);
      return all.filter((v) => LEDGER_OWN_INVARIANTS.includes(v.invariant));
    } finally {
      await client.end();
    }
  }

  it('postAll writes 100 ledger transactions in one statement, and they balance', async () => {
    clock.set('2026-09-01T10:05:00Z');
    const entries = Array.from({ length: 100 }, (_, i) =>
      credit(available(merchants[i % 2]), `${i + 1}.000001`),
    );
    const knex = orm.em.getConnection().getKnex();
    const statements: string[] = [];
    const onQuery = (data: { sql: string }) => statements.push(data.sql);
    const ids = await inTransaction(async (tx) => {
      knex.on('query', onQuery);
      try {
        return await ledger.postAll(tx, entries);
      } finally {
        knex.off('query', onQuery);
      }
    });
    expect(statements).toHaveLength(1);
    expect(ids).toHaveLength(100);
    expect(new Set(ids).size).toBe(100);
    // a: 1 + 3 + ... + 99, b: 2 + 4 + ... + 100, plus 0.000001 each.
    expect(await balanceOf(available('mer_post_a'))).toBe('2500.000050');
    expect(await balanceOf(available('mer_post_b'))).toBe('2550.000050');
    expect(await counts()).toEqual({ transactions: '100', postings: '200' });
    // The merchant balances' updated_at is the service's clock, as balance() reports it.
    const balance = await ledger.balance(orm.em.fork(), 'mer_post_a', new Date(0));
    expect(balance.updatedAt.toISOString()).toBe('2026-09-01T10:05:00.000Z');
    expect(await ownViolations()).toEqual([]);
  });

  it('post writes one ledger transaction in one statement', async () => {
    const knex = orm.em.getConnection().getKnex();
    let statements = 0;
    const onQuery = () => (statements += 1);
    await inTransaction(async (tx) => {
      knex.on('query', onQuery);
      try {
        await ledger.post(tx, credit(available('mer_post_a'), '1'));
      } finally {
        knex.off('query', onQuery);
      }
    });
    expect(statements).toBe(1);
    expect(await balanceOf(available('mer_post_a'))).toBe('2501.000050');
  });

  it('refuses an unbalanced entry, and writes nothing of its batch', async () => {
    const before = await counts();
    const unbalanced: LedgerEntry = {
      kind: 'adjustment',
      postings: [
        { account: OPERATOR.usdTreasury, direction: 'DEBIT', amount: dec('10') },
        { account: available('mer_post_a'), direction: 'CREDIT', amount: dec('9.999999') },
      ],
    };
    await expect(postAll([credit(available('mer_post_b'), '5'), unbalanced])).rejects.toThrow(
      /does not balance in USD/,
    );
    expect(await counts()).toEqual(before);
    expect(await balanceOf(available('mer_post_b'))).toBe('2550.000050');
  });

  it('refuses a posting in another currency than its account, from the service or raw SQL', async () => {
    const before = await counts();
    // Balanced in NGN, but the treasury account is USD.
    const wrongCurrency: LedgerEntry = {
      kind: 'adjustment',
      postings: [
        {
          account: { ...OPERATOR.usdTreasury, currency: 'NGN' },
          direction: 'DEBIT',
          amount: dec(5),
        },
        { account: OPERATOR.ngnBank, direction: 'CREDIT', amount: dec(5) },
      ],
    };
    await expect(postAll([wrongCurrency])).rejects.toThrow(
      /posting in NGN to USD account operator:usd_treasury/,
    );
    await expect(
      inTransaction(async (tx) => {
        const [id] = await ledger.postAll(tx, [{ kind: 'adjustment', postings: [] }]);
        await tx.getConnection().execute(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values (?, 'operator:usd_treasury', 'NGN', 'DEBIT', 1), (?, ?, 'NGN', 'CREDIT', 1)`,
          [id, id, available('mer_post_b').id],
          'run',
          tx.getTransactionContext(),
        );
      }),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await counts()).toEqual(before);
  });

  it('refuses to overdraw a merchant balance, and writes nothing of its batch', async () => {
    const before = await counts();
    await expect(
      postAll([
        credit(available('mer_post_b'), '1'),
        debit(available('mer_post_a'), '2501.000051'),
      ]),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await counts()).toEqual(before);
    expect(await balanceOf(available('mer_post_a'))).toBe('2501.000050');
    expect(await balanceOf(available('mer_post_b'))).toBe('2550.000050');
    // A new merchant account is created by its first posting, so even that is refused.
    await expect(
      postAll([debit(merchantAccount('mer_post_a', 'usd_pending_withdrawal'), '0.000001')]),
    ).rejects.toMatchObject({ code: '23514' });
    expect(await balanceOf(merchantAccount('mer_post_a', 'usd_pending_withdrawal'))).toBeNull();
  });

  it('checks a batch against its net per account (no order inside one statement)', async () => {
    // Entry by entry the debit would come first and overdraw; the statement's net does not.
    await postAll([debit(available('mer_post_a'), '2502'), credit(available('mer_post_a'), '1')]);
    expect(await balanceOf(available('mer_post_a'))).toBe('0.000050');
    expect(await ownViolations()).toEqual([]);
  });

  it('refuses postings added to a transaction by a later statement', async () => {
    const before = await counts();
    await expect(
      inTransaction(async (tx) => {
        const [id] = await ledger.postAll(tx, [credit(available('mer_post_b'), '3')]);
        // Balanced on its own, but the transaction was already written.
        await tx.getConnection().execute(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values (?, 'operator:usd_treasury', 'USD', 'DEBIT', 1), (?, ?, 'USD', 'CREDIT', 1)`,
          [id, id, available('mer_post_b').id],
          'run',
          tx.getTransactionContext(),
        );
      }),
    ).rejects.toMatchObject({ code: '23001' });
    expect(await counts()).toEqual(before);
  });

  it('refuses postings to an account or a transaction that does not exist (no foreign keys: the trigger)', async () => {
    const before = await counts();
    const insertPostings = (transactionId: string | null, accountId: string) =>
      inTransaction(async (tx) => {
        const [id] = await ledger.postAll(tx, [{ kind: 'adjustment', postings: [] }]);
        await tx.getConnection().execute(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values (?, 'operator:usd_treasury', 'USD', 'DEBIT', 1), (?, ?, 'USD', 'CREDIT', 1)`,
          [transactionId ?? id, transactionId ?? id, accountId],
          'run',
          tx.getTransactionContext(),
        );
      });
    await expect(insertPostings(null, 'merchant:mer_nobody:usd_available')).rejects.toMatchObject({
      code: '23503',
      message: expect.stringContaining('mer_nobody'),
    });
    await expect(insertPostings('ltx_nothing', available('mer_post_a').id)).rejects.toMatchObject({
      code: '23503',
      message: expect.stringContaining('ltx_nothing'),
    });
    expect(await counts()).toEqual(before);
  });

  it.each([
    ['update ledger_postings set amount = amount + 1'],
    ['delete from ledger_postings'],
    ['truncate ledger_postings'],
    ['update ledger_transactions set memo = null'],
    ['delete from ledger_transactions'],
    ['truncate ledger_transactions'],
    // Reserve holds reference ledger transactions (issue 36): a plain truncate is refused by that
    // foreign key (0A000) before the trigger; with cascade the trigger still refuses it.
    ['truncate ledger_transactions cascade'],
    ["delete from ledger_accounts where id like 'merchant:%'"],
    ["update ledger_accounts set id = id || ':renamed' where id like 'merchant:%'"],
    ['truncate ledger_accounts'],
  ])('refuses %s', async (statement) => {
    const before = await counts();
    await expect(sql(statement)).rejects.toMatchObject({
      code: expect.stringMatching(/^(23|0A000$)/),
    });
    expect(await counts()).toEqual(before);
  });

  it('two concurrent batches on the same merchant accounts, in opposite orders, do not deadlock', async () => {
    const a = available('mer_post_a');
    const b = available('mer_post_b');
    const batch = (first: LedgerAccountSpec, second: LedgerAccountSpec) =>
      Array.from({ length: 40 }, (_, i) => credit(i % 2 === 0 ? first : second, '0.5'));
    const before = [dec((await balanceOf(a)) ?? 0), dec((await balanceOf(b)) ?? 0)];
    const rounds = 10;
    for (let round = 0; round < rounds; round += 1) {
      const results = await Promise.allSettled([postAll(batch(a, b)), postAll(batch(b, a))]);
      expect(results.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok'))).toEqual([
        'ok',
        'ok',
      ]);
    }
    // Each round credits each merchant 2 x 20 x 0.5.
    expect(await balanceOf(a)).toBe(before[0].plus(rounds * 20).toFixed(6));
    expect(await balanceOf(b)).toBe(before[1].plus(rounds * 20).toFixed(6));
    expect(await ownViolations()).toEqual([]);
  });
});
