import { Migration } from '@mikro-orm/migrations';

/**
 * The payer's side (issue 22): what a merchant expects of a transfer and what it does when a
 * transfer differs.
 * - `deposits.sender_account_last4`: generated from `sender_account`, so every read of the
 *   public deposit (view columns, outbox snapshots) can carry the payer's last four digits
 *   without ever touching the full number, which stays for operators and returns only.
 * - `deposit_snapshot` now keeps `sender_name`, `sender_bank` and the last four digits, and
 *   still drops the full `sender_account`.
 * - `onramps.amount_ngn` (expected amount, THROWAWAY and EPHEMERAL only) and
 *   `onramps.payer_name` (the name the merchant expects the transfer from).
 * - `merchants.underpayment`, `overpayment`, `payer_name_check`: jsonb rules, null meaning the
 *   default (accept every amount; no name check), so existing merchants keep today's behaviour.
 */
export class Migration20261125110100_payer_rules extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table deposits add column sender_account_last4 text
      generated always as (right(sender_account, 4)) stored;`);
    this.addSql(`
      create or replace function deposit_snapshot(d deposits) returns jsonb language sql stable as $$
        select (to_jsonb(d) - 'sender_account')
          || jsonb_build_object(
               'amount_ngn', d.amount_ngn::text,
               'amount_asset', d.amount_asset::text,
               'limit_usd', d.limit_usd::text)
      $$;`);
    this.addSql('alter table onramps add column amount_ngn numeric(20, 2);');
    this.addSql('alter table onramps add column payer_name text;');
    this.addSql(`alter table onramps add constraint onramps_amount_ngn_positive
      check (amount_ngn is null or amount_ngn > 0);`);
    this.addSql('alter table merchants add column underpayment jsonb;');
    this.addSql('alter table merchants add column overpayment jsonb;');
    this.addSql('alter table merchants add column payer_name_check jsonb;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table merchants drop column payer_name_check;');
    this.addSql('alter table merchants drop column overpayment;');
    this.addSql('alter table merchants drop column underpayment;');
    this.addSql('alter table onramps drop constraint onramps_amount_ngn_positive;');
    this.addSql('alter table onramps drop column payer_name;');
    this.addSql('alter table onramps drop column amount_ngn;');
    this.addSql(`
      create or replace function deposit_snapshot(d deposits) returns jsonb language sql stable as $$
        select (to_jsonb(d) - 'sender_name' - 'sender_account' - 'sender_bank')
          || jsonb_build_object(
               'amount_ngn', d.amount_ngn::text,
               'amount_asset', d.amount_asset::text,
               'limit_usd', d.limit_usd::text)
      $$;`);
    this.addSql('alter table deposits drop column sender_account_last4;');
  }
}
