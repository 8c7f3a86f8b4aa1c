import { Migration } from '@mikro-orm/migrations';

/**
 * Operator tools. `operator_tokens`: who may call the admin GraphQL endpoint (only hashes are
 * stored). `audit_log`: every operator action, who, what, when, before and after; append-only.
 * Manual resolution of a deposit FLAGGED after FX unwinds its conversion and may convert it
 * again, so a deposit can now have more than one `deposit_fx` and more than one payout over its
 * life: at most one of them live (the ledger check counts them against the unwinds).
 */
export class Migration20261122000700_operations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table operator_tokens (
        id text primary key,
        name text not null,
        token_hash text not null unique,
        created_at timestamptz not null,
        revoked_at timestamptz
      );`);
    this.addSql(`
      create table audit_log (
        id text primary key,
        actor text not null,
        action text not null,
        target_type text not null,
        target_id text not null,
        before jsonb,
        after jsonb,
        created_at timestamptz not null
      );`);
    this.addSql('create index audit_log_target_idx on audit_log (target_type, target_id);');
    this.addSql('create index audit_log_created_idx on audit_log (created_at desc, id desc);');
    this.addSql(`
      create function audit_log_append_only() returns trigger language plpgsql as $$
      begin
        raise exception 'the audit log is append-only' using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`
      create trigger audit_log_append_only before update or delete on audit_log
        for each row execute function audit_log_append_only();`);

    // The venue order of a re-conversion: the first one uses the deposit id.
    this.addSql('alter table deposits add column fx_order_id text;');
    this.addSql('drop index ledger_transactions_once_per_deposit;');
    this.addSql(`
      create unique index ledger_transactions_once_per_deposit
        on ledger_transactions (deposit_id, kind)
        where kind in ('deposit_received', 'deposit_reversal');`);
    // A cancelled or reverted payout's USD leaves suspense once: unwound or released.
    this.addSql(`
      create unique index ledger_transactions_suspense_leaves_once
        on ledger_transactions (payout_id)
        where kind in ('deposit_unwind', 'deposit_release');`);
    this.addSql('alter table payouts drop constraint payouts_deposit_id_key;');
    this.addSql(`
      create unique index payouts_one_live_per_deposit on payouts (deposit_id)
        where deposit_id is not null and status in ('PENDING', 'SIGNED', 'CONFIRMED');`);
    this.addSql('create index payouts_deposit_idx on payouts (deposit_id, created_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists payouts_deposit_idx;');
    this.addSql('drop index if exists payouts_one_live_per_deposit;');
    this.addSql('alter table payouts add constraint payouts_deposit_id_key unique (deposit_id);');
    this.addSql('drop index if exists ledger_transactions_suspense_leaves_once;');
    this.addSql('drop index if exists ledger_transactions_once_per_deposit;');
    this.addSql(`
      create unique index ledger_transactions_once_per_deposit
        on ledger_transactions (deposit_id, kind)
        where kind in ('deposit_received', 'deposit_fx', 'deposit_reversal');`);
    this.addSql('alter table deposits drop column if exists fx_order_id;');
    this.addSql('drop table if exists audit_log;');
    this.addSql('drop function if exists audit_log_append_only();');
    this.addSql('drop table if exists operator_tokens;');
  }
}
