import type { MikroORM } from '@mikro-orm/postgresql';
import { createTestDatabase, forgetTestDatabase, openTestOrm } from '../support/db';

describe('Migration20261125000200_lean_ledger_events', () => {
  const NAME = 'Migration20261125000200_lean_ledger_events';
  const triggers = async (orm: MikroORM) =>
    (
      await orm.em
        .fork()
        .getConnection()
        .execute<Array<{ tgname: string }>>(
          `select tgname from pg_trigger
            where tgrelid = 'ledger_postings'::regclass and not tgisinternal order by tgname`,
        )
    ).map((t) => t.tgname);

  it('down() restores the per-row triggers, up() the statement-level ones', async () => {
    // Its adjustment has no deposit behind it: left out of the after-all reconciliation.
    const url = await createTestDatabase();
    forgetTestDatabase(url);
    const orm = await openTestOrm(url);
    try {
      expect(await triggers(orm)).toEqual([
        'ledger_postings_append_only',
        'ledger_postings_applied',
      ]);
      const foreignKeys = async () =>
        (
          await orm.em
            .fork()
            .getConnection()
            .execute<Array<{ conname: string }>>(
              `select conname from pg_constraint
                where conrelid = 'ledger_postings'::regclass and contype = 'f' order by conname`,
            )
        ).map((c) => c.conname);
      expect(await foreignKeys()).toEqual([]);
      await orm.getMigrator().down({ migrations: [NAME] });
      expect(await triggers(orm)).toEqual([
        'ledger_posting_applied',
        'ledger_transaction_balanced',
      ]);
      expect(await foreignKeys()).toEqual([
        'ledger_postings_account_id_fkey',
        'ledger_postings_transaction_id_fkey',
      ]);
      // The old rule again: postings of one transaction may arrive one statement at a time.
      await orm.em.fork().transactional(async (tx) => {
        const run = (q: string) =>
          tx.getConnection().execute(q, [], 'run', tx.getTransactionContext());
        await run(
          `insert into ledger_accounts (id, currency, normal_side, non_negative, updated_at)
           values ('operator:usd_treasury', 'USD', 'DEBIT', false, now()),
                  ('operator:usd_fx_revenue', 'USD', 'CREDIT', false, now())`,
        );
        await run(
          `insert into ledger_transactions (id, kind, created_at) values ('ltx_down', 'adjustment', now())`,
        );
        await run(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values ('ltx_down', 'operator:usd_treasury', 'USD', 'DEBIT', 1)`,
        );
        await run(
          `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
           values ('ltx_down', 'operator:usd_fx_revenue', 'USD', 'CREDIT', 1)`,
        );
      });
      await orm.getMigrator().up({ migrations: [NAME] });
      expect(await triggers(orm)).toEqual([
        'ledger_postings_append_only',
        'ledger_postings_applied',
      ]);
    } finally {
      await orm.close();
    }
  });
});
