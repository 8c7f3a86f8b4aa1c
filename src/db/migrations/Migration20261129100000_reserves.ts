import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 36: reversal liability and reserves, owned by the ledger module.
 * - `merchant_ledger_terms`: what the operator set for a merchant: who bears its reversals
 *   (null: `REVERSAL_LIABILITY`) and its reserve (both columns or neither).
 * - `reserve_holds`: one per balance settlement that held a reserve share: `amount` held,
 *   `drawn` by liable reversals since, released (the rest, `amount - drawn`) by the ledger
 *   transaction named once `release_at` has passed. usd_reserved is the sum of what the
 *   unreleased holds still hold (`onramp ledger check`).
 * - A deposit's reserve hold and its merchant debit are ledger transactions written once per
 *   deposit (a unique index of their own, beside the one of receipts and reversals).
 */
export class Migration20261129100000_reserves extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table merchant_ledger_terms (
      merchant_id text primary key references merchants(id),
      reversal_liability text check (reversal_liability in ('operator', 'merchant')),
      reserve_percent_bps integer check (reserve_percent_bps between 0 and 10000),
      reserve_hold_days integer check (reserve_hold_days between 0 and 365),
      updated_at timestamptz not null,
      check ((reserve_percent_bps is null) = (reserve_hold_days is null))
    );`);
    this.addSql(`create table reserve_holds (
      deposit_id text primary key references deposits(id),
      merchant_id text not null references merchants(id),
      amount numeric(30, 6) not null check (amount > 0),
      drawn numeric(30, 6) not null default 0 check (drawn >= 0 and drawn <= amount),
      held_at timestamptz not null,
      release_at timestamptz not null,
      released_at timestamptz,
      release_transaction_id text references ledger_transactions(id),
      check ((released_at is null) = (release_transaction_id is null))
    );`);
    this.addSql(
      'create index reserve_holds_due on reserve_holds (release_at) where released_at is null and amount > drawn;',
    );
    this.addSql(
      'create index reserve_holds_open on reserve_holds (merchant_id, held_at) where released_at is null;',
    );
    this.addSql(`create unique index ledger_transactions_reserve_once_per_deposit
      on ledger_transactions (deposit_id, kind) where kind in ('reserve_hold', 'merchant_debit');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index ledger_transactions_reserve_once_per_deposit;');
    this.addSql('drop table reserve_holds;');
    this.addSql('drop table merchant_ledger_terms;');
  }
}
