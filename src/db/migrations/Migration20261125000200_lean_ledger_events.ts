import { Migration } from '@mikro-orm/migrations';

/**
 * The ledger's invariants checked once per statement instead of once (or twice) per posting
 * row. `LedgerService` now writes a ledger transaction, or a whole settlement batch of them,
 * in ONE insert statement; one statement-level trigger on `ledger_postings` then sees all of
 * that statement's postings at once (a transition table), and in two statements of its own:
 *
 * - refuse the statement if any posting is in another currency than its account, if any
 *   ledger transaction's postings in it do not balance per currency, or if a transaction
 *   already had postings from an earlier statement (a transaction's postings all arrive in
 *   one statement, so "balances after every statement" is "balances", with no deferred
 *   re-sum at commit);
 * - apply the net of the statement to each non-negative (merchant) account in ONE update,
 *   locking those rows in id order first (two batches touching the same merchants cannot
 *   deadlock), stamping `updated_at` with the posting transactions' `created_at` (the
 *   service's injected clock, which `LedgerService.balance` reports); the `balance >= 0`
 *   check constraint still refuses an overdraw, now of the statement's net per account.
 *
 * Postings stay append-only (one statement-level trigger refuses update, delete and
 * truncate); transactions keep their row trigger and their unique indexes. The trigger also
 * does what the postings' foreign keys did (they go: see `up`).
 */
export class Migration20261125000200_lean_ledger_events extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop trigger ledger_transaction_balanced on ledger_postings;');
    this.addSql('drop trigger ledger_posting_applied on ledger_postings;');
    this.addSql('drop function ledger_transaction_balanced();');
    this.addSql('drop function ledger_posting_applied();');

    this.addSql(`
      create function ledger_postings_applied() returns trigger language plpgsql as $$
      declare
        refusal text;
        refusal_code text;
      begin
        -- Every lookup is driven by the statement's own rows (lateral, offset 0: never
        -- flattened into a join the planner could hash): plpgsql keeps the first plan it
        -- makes, and a plan made for a batch of 400 postings must stay cheap for 2.
        select v.message, v.code into refusal, refusal_code from (
          select 1 as rank,
                 case when a.id is null then 'foreign_key_violation' else 'check_violation' end as code,
                 case when a.id is null
                      then format('posting to ledger account %s, which does not exist', n.account_id)
                      else format('posting in %s to %s account %s', n.currency, a.currency, a.id)
                 end as message
            from new_postings n
            left join lateral (select a.id, a.currency from ledger_accounts a
                                where a.id = n.account_id offset 0) a on true
           where a.id is null or a.currency <> n.currency
          union all
          select 2, 'check_violation',
                 format('ledger transaction %s does not balance in %s (net %s)', n.transaction_id,
                        n.currency, sum(case n.direction when 'DEBIT' then n.amount else -n.amount end))
            from new_postings n
           group by n.transaction_id, n.currency
          having sum(case n.direction when 'DEBIT' then n.amount else -n.amount end) <> 0
          union all
          -- The new postings are visible here: any more are an earlier statement's.
          select 3,
                 case when tx.id is null then 'foreign_key_violation' else 'restrict_violation' end,
                 case when tx.id is null
                      then format('postings of ledger transaction %s, which does not exist', t.transaction_id)
                      else format('ledger transaction %s already has postings: all of a transaction''s postings arrive in one statement',
                                  t.transaction_id)
                 end
            from (select transaction_id, count(*) as postings from new_postings
                   group by transaction_id) t
            left join lateral (select tx.id from ledger_transactions tx
                                where tx.id = t.transaction_id offset 0) tx on true
           where tx.id is null
              or (select count(*) from ledger_postings p
                   where p.transaction_id = t.transaction_id) <> t.postings
        ) v
        order by v.rank
        limit 1;
        if refusal is not null then
          raise exception '%', refusal using errcode = refusal_code;
        end if;

        -- Locked in id order before the update (an init plan: all taken before the update
        -- touches a row), so concurrent statements cannot deadlock. NO KEY UPDATE, as the
        -- update itself takes: a plain FOR UPDATE would also wait for KEY SHARE locks (a
        -- foreign key check of any other table that may come to reference accounts).
        with net as materialized (
          select n.account_id,
                 sum(case when n.direction = a.normal_side then n.amount else -n.amount end) as amount,
                 max(t.created_at) as at
            from new_postings n
           cross join lateral (select a.normal_side, a.non_negative from ledger_accounts a
                                where a.id = n.account_id offset 0) a
           cross join lateral (select t.created_at from ledger_transactions t
                                where t.id = n.transaction_id offset 0) t
           where a.non_negative
           group by n.account_id
        ), locked as materialized (
          select a.id from ledger_accounts a
           where a.id = any (array(select account_id from net))
           order by a.id for no key update
        )
        update ledger_accounts a
           set balance = a.balance + net.amount, updated_at = net.at
          from net
         where a.id = any (array(select id from locked)) and a.id = net.account_id;
        return null;
      end $$;`);
    this.addSql(`
      create trigger ledger_postings_applied after insert on ledger_postings
        referencing new table as new_postings
        for each statement execute function ledger_postings_applied();`);

    this.addSql(`
      create function ledger_postings_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'ledger postings are append-only' using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`
      create trigger ledger_postings_append_only before update or delete or truncate on ledger_postings
        for each statement execute function ledger_postings_append_only();`);

    // The postings' two foreign keys cost two lookups per posting row (14 statements of a
    // deposit); the trigger above checks both once per statement instead. What the keys
    // also prevented, a referenced row going away, cannot happen: transactions refuse
    // update and delete (their row trigger) and truncate, accounts refuse delete, a new id
    // and truncate.
    this.addSql(
      'alter table ledger_postings drop constraint ledger_postings_transaction_id_fkey, drop constraint ledger_postings_account_id_fkey;',
    );
    this.addSql(`
      create function ledger_rows_kept() returns trigger language plpgsql as $$
      begin
        raise exception '% rows are never deleted, renamed or truncated', tg_table_name
          using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`
      create trigger ledger_accounts_kept before delete or update of id on ledger_accounts
        for each row execute function ledger_rows_kept();`);
    this.addSql(`
      create trigger ledger_accounts_not_truncated before truncate on ledger_accounts
        for each statement execute function ledger_rows_kept();`);
    this.addSql(`
      create trigger ledger_transactions_not_truncated before truncate on ledger_transactions
        for each statement execute function ledger_rows_kept();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger ledger_transactions_not_truncated on ledger_transactions;');
    this.addSql('drop trigger ledger_accounts_not_truncated on ledger_accounts;');
    this.addSql('drop trigger ledger_accounts_kept on ledger_accounts;');
    this.addSql('drop function ledger_rows_kept();');
    this.addSql(`
      alter table ledger_postings
        add constraint ledger_postings_transaction_id_fkey
          foreign key (transaction_id) references ledger_transactions(id),
        add constraint ledger_postings_account_id_fkey
          foreign key (account_id) references ledger_accounts(id);`);
    this.addSql('drop trigger ledger_postings_append_only on ledger_postings;');
    this.addSql('drop trigger ledger_postings_applied on ledger_postings;');
    this.addSql('drop function ledger_postings_append_only();');
    this.addSql('drop function ledger_postings_applied();');
    // The per-row triggers of Migration20261122000300_deposits, as they were.
    this.addSql(`
      create function ledger_posting_applied() returns trigger language plpgsql as $$
      declare
        account ledger_accounts;
      begin
        if tg_op <> 'INSERT' then
          raise exception 'ledger postings are append-only' using errcode = 'restrict_violation';
        end if;
        select * into account from ledger_accounts where id = new.account_id;
        if account.currency <> new.currency then
          raise exception 'posting in % to % account %', new.currency, account.currency, account.id
            using errcode = 'check_violation';
        end if;
        if account.non_negative then
          update ledger_accounts
             set balance = balance + case when new.direction = account.normal_side
                                          then new.amount else -new.amount end
           where id = account.id;
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger ledger_posting_applied before insert or update or delete on ledger_postings
        for each row execute function ledger_posting_applied();`);
    this.addSql(`
      create function ledger_transaction_balanced() returns trigger language plpgsql as $$
      declare
        unbalanced record;
      begin
        select currency, sum(case direction when 'DEBIT' then amount else -amount end) as net
          into unbalanced
          from ledger_postings where transaction_id = new.transaction_id
         group by currency
        having sum(case direction when 'DEBIT' then amount else -amount end) <> 0
         limit 1;
        if found then
          raise exception 'ledger transaction % does not balance in % (net %)',
            new.transaction_id, unbalanced.currency, unbalanced.net using errcode = 'check_violation';
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create constraint trigger ledger_transaction_balanced after insert on ledger_postings
        deferrable initially deferred
        for each row execute function ledger_transaction_balanced();`);
  }
}
