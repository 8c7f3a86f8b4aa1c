import { Migration } from '@mikro-orm/migrations';

/**
 * The spec's deposit transitions plus docs/api.md's (manual resolution, reversal outcomes). The
 * domain module `deposit-state-machine.ts` holds the same table; a test keeps them equal.
 */
const TRANSITIONS: Array<[string, string]> = [
  ['PENDING_FX', 'SETTLED'],
  ['PENDING_FX', 'PENDING_WITHDRAWAL'],
  ['PENDING_FX', 'FLAGGED'],
  ['PENDING_FX', 'FAILED'],
  ['PENDING_WITHDRAWAL', 'SETTLED'],
  ['PENDING_WITHDRAWAL', 'FLAGGED'],
  ['SETTLED', 'REVERSED'],
  ['FLAGGED', 'PENDING_FX'],
  ['FLAGGED', 'FAILED'],
];

/**
 * Deposits, the outbox of events, the double-entry ledger and the daily volume counters.
 * The database holds the invariants itself: a deposit only moves along the transition table,
 * every entry into a status writes exactly one event row (a trigger, so no code path can
 * forget it), every ledger transaction balances per currency at commit, and a merchant
 * balance cannot go below zero.
 */
export class Migration20261122000300_deposits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table deposit_transitions (
        from_status text not null,
        to_status text not null,
        primary key (from_status, to_status)
      );`);
    this.addSql(
      `insert into deposit_transitions (from_status, to_status) values ${TRANSITIONS.map(
        ([from, to]) => `('${from}', '${to}')`,
      ).join(', ')};`,
    );

    this.addSql(`
      create table deposits (
        id text primary key,
        onramp_id text not null references onramps(id),
        merchant_id text not null references merchants(id),
        payment_reference text not null,
        user_email text not null,
        account_number text not null,
        bank_reference text not null unique check (length(bank_reference) between 1 and 128),
        amount_ngn numeric(20, 2) not null check (amount_ngn > 0),
        rate_id text references rates(id),
        amount_asset numeric(26, 6) check (amount_asset >= 0),
        limit_usd numeric(26, 6) not null check (limit_usd >= 0),
        asset text check (asset in ('USDC', 'USDT', 'USD')),
        chain text check (chain in ('BASE', 'ETHEREUM', 'POLYGON')),
        settlement_mode text not null check (settlement_mode in ('AUTO_WITHDRAW', 'MERCHANT_BALANCE')),
        tx_hash text,
        status text not null check (status in ('PENDING_FX', 'PENDING_WITHDRAWAL', 'SETTLED', 'FAILED', 'FLAGGED', 'REVERSED')),
        failure_reason text,
        flag_reason text,
        sender_name text,
        sender_account text,
        sender_bank text,
        lagos_day date not null,
        fx_executed_at timestamptz,
        reversed_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        settled_at timestamptz,
        check ((status = 'FAILED') = (failure_reason is not null)),
        check ((status = 'FLAGGED') = (flag_reason is not null)),
        check (status not in ('SETTLED', 'REVERSED') or (settled_at is not null and amount_asset is not null and fx_executed_at is not null))
      );`);
    this.addSql(
      'create index deposits_merchant_created_idx on deposits (merchant_id, created_at desc, id desc);',
    );
    this.addSql(
      'create index deposits_onramp_created_idx on deposits (onramp_id, created_at desc, id desc);',
    );
    this.addSql(
      'create index deposits_merchant_updated_idx on deposits (merchant_id, updated_at);',
    );
    this.addSql(
      "create index deposits_pending_fx_idx on deposits (updated_at) where status = 'PENDING_FX';",
    );

    // The outbox: one row per entry into a status, in the same transaction. `snapshot` is the
    // deposit row as it was (amounts as text, never binary floats); webhooks (`data`) and
    // subscriptions present it. `seq` orders events for catch-up after a reconnect.
    this.addSql(`
      create table events (
        seq bigserial unique,
        id text primary key,
        kind text not null,
        merchant_id text not null references merchants(id),
        deposit_id text references deposits(id),
        status text,
        snapshot jsonb not null,
        created_at timestamptz not null
      );`);
    this.addSql('create index events_deposit_idx on events (deposit_id, seq);');
    this.addSql('create index events_merchant_idx on events (merchant_id, seq);');

    this.addSql(`
      create function deposit_snapshot(d deposits) returns jsonb language sql stable as $$
        select (to_jsonb(d) - 'sender_name' - 'sender_account' - 'sender_bank')
          || jsonb_build_object(
               'amount_ngn', d.amount_ngn::text,
               'amount_asset', d.amount_asset::text,
               'limit_usd', d.limit_usd::text)
      $$;`);
    this.addSql(`
      create function deposits_status_event() returns trigger language plpgsql as $$
      declare
        event_kind text;
        event_seq bigint;
      begin
        if tg_op = 'UPDATE' then
          if new.status = old.status then
            return null;
          end if;
          if not exists (select 1 from deposit_transitions
                          where from_status = old.status and to_status = new.status) then
            raise exception 'deposit % cannot move from % to %', new.id, old.status, new.status
              using errcode = 'check_violation';
          end if;
        elsif new.status not in ('PENDING_FX', 'FLAGGED', 'FAILED') then
          raise exception 'deposit % cannot start in %', new.id, new.status
            using errcode = 'check_violation';
        end if;
        event_kind := case new.status
          when 'PENDING_FX' then 'deposit.created'
          when 'PENDING_WITHDRAWAL' then 'deposit.pending_withdrawal'
          when 'SETTLED' then 'deposit.settled'
          when 'FAILED' then 'deposit.failed'
          when 'FLAGGED' then 'deposit.flagged'
          when 'REVERSED' then 'deposit.reversed'
        end;
        insert into events (id, kind, merchant_id, deposit_id, status, snapshot, created_at)
        values ('evt_' || replace(gen_random_uuid()::text, '-', ''), event_kind, new.merchant_id,
                new.id, new.status, deposit_snapshot(new), new.updated_at)
        returning seq into event_seq;
        -- Delivered at commit only: listeners (settlement, subscriptions) never see a rollback.
        perform pg_notify('deposit_events', json_build_object(
          'seq', event_seq, 'kind', event_kind, 'deposit_id', new.id,
          'merchant_id', new.merchant_id, 'onramp_id', new.onramp_id,
          'status', new.status, 'settlement_mode', new.settlement_mode)::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger deposits_status_event after insert or update of status on deposits
        for each row execute function deposits_status_event();`);
    // Identity and amounts never change once received.
    this.addSql(`
      create function deposits_identity_immutable() returns trigger language plpgsql as $$
      begin
        if (new.onramp_id, new.merchant_id, new.bank_reference, new.amount_ngn, new.created_at,
            new.settlement_mode, new.lagos_day)
           is distinct from
           (old.onramp_id, old.merchant_id, old.bank_reference, old.amount_ngn, old.created_at,
            old.settlement_mode, old.lagos_day) then
          raise exception 'deposit % identity and amount are immutable', old.id
            using errcode = 'restrict_violation';
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger deposits_identity_immutable before update on deposits
        for each row execute function deposits_identity_immutable();`);

    // Transfers to an account number no onramp ever held: kept so the operator can return them.
    this.addSql(`
      create table unmatched_transfers (
        bank_reference text primary key,
        account_number text not null,
        amount_ngn numeric(20, 2) not null check (amount_ngn > 0),
        sender_name text,
        sender_account text,
        sender_bank text,
        received_at timestamptz not null
      );`);

    // USD counted against the daily limits per Africa/Lagos day: scope 'system' or a merchant id.
    this.addSql(`
      create table deposit_daily_volume (
        scope text not null,
        day date not null,
        usd numeric(26, 6) not null check (usd >= 0),
        primary key (scope, day)
      );`);

    // Double-entry ledger. `balance` (in the account's normal direction) is kept only for
    // accounts that must never go negative (merchant balances), by the postings trigger, and
    // the check constraint refuses the posting that would overdraw one. Operator accounts
    // are summed from postings instead, so no hot row serialises every settlement.
    this.addSql(`
      create table ledger_accounts (
        id text primary key,
        merchant_id text references merchants(id),
        currency text not null check (currency in ('NGN', 'USD')),
        normal_side text not null check (normal_side in ('DEBIT', 'CREDIT')),
        non_negative boolean not null,
        balance numeric(30, 6),
        updated_at timestamptz not null,
        check (non_negative = (balance is not null)),
        check (balance is null or balance >= 0)
      );`);
    this.addSql(`
      create table ledger_transactions (
        id text primary key,
        kind text not null,
        deposit_id text references deposits(id),
        memo text,
        created_at timestamptz not null
      );`);
    // Kinds that happen once per deposit, whatever retries or crashes do.
    this.addSql(`
      create unique index ledger_transactions_once_per_deposit
        on ledger_transactions (deposit_id, kind)
        where kind in ('deposit_received', 'deposit_fx', 'deposit_reversal');`);
    this.addSql(`
      create table ledger_postings (
        id bigserial primary key,
        transaction_id text not null references ledger_transactions(id),
        account_id text not null references ledger_accounts(id),
        currency text not null check (currency in ('NGN', 'USD')),
        direction text not null check (direction in ('DEBIT', 'CREDIT')),
        amount numeric(30, 6) not null check (amount > 0)
      );`);
    this.addSql(
      'create index ledger_postings_transaction_idx on ledger_postings (transaction_id);',
    );
    this.addSql('create index ledger_postings_account_idx on ledger_postings (account_id);');
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
    // Checked at commit, once all of a transaction's postings are in.
    this.addSql(`
      create constraint trigger ledger_transaction_balanced after insert on ledger_postings
        deferrable initially deferred
        for each row execute function ledger_transaction_balanced();`);
    this.addSql(`
      create function ledger_transactions_immutable() returns trigger language plpgsql as $$
      begin
        raise exception 'ledger transactions are append-only' using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`
      create trigger ledger_transactions_immutable before update or delete on ledger_transactions
        for each row execute function ledger_transactions_immutable();`);

    // Sandbox auto-simulation: one scheduled transfer per new onramp of a merchant that asked.
    this.addSql(`
      alter table sandbox_scenarios
        add column fx_failure text not null default 'NONE' check (fx_failure in ('NONE', 'TEMPORARY', 'PERMANENT')),
        add column auto_deposit_ngn numeric(20, 2) check (auto_deposit_ngn > 0),
        add column auto_deposit_delay_seconds integer not null default 0
          check (auto_deposit_delay_seconds between 0 and 86400);`);
    this.addSql(`
      create table sandbox_auto_deposits (
        onramp_id text primary key references onramps(id),
        account_number text not null,
        amount_ngn numeric(20, 2) not null check (amount_ngn > 0),
        due_at timestamptz not null,
        done_at timestamptz
      );`);
    this.addSql(
      'create index sandbox_auto_deposits_due_idx on sandbox_auto_deposits (due_at) where done_at is null;',
    );
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists sandbox_auto_deposits;');
    this.addSql(
      'alter table sandbox_scenarios drop column if exists fx_failure, drop column if exists auto_deposit_ngn, drop column if exists auto_deposit_delay_seconds;',
    );
    this.addSql('drop table if exists ledger_postings;');
    this.addSql('drop table if exists ledger_transactions;');
    this.addSql('drop table if exists ledger_accounts;');
    this.addSql('drop function if exists ledger_posting_applied();');
    this.addSql('drop function if exists ledger_transaction_balanced();');
    this.addSql('drop function if exists ledger_transactions_immutable();');
    this.addSql('drop table if exists deposit_daily_volume;');
    this.addSql('drop table if exists unmatched_transfers;');
    this.addSql('drop table if exists events;');
    this.addSql('drop table if exists deposits;');
    this.addSql('drop function if exists deposits_status_event();');
    this.addSql('drop function if exists deposits_identity_immutable();');
    this.addSql('drop function if exists deposit_snapshot(deposits);');
    this.addSql('drop table if exists deposit_transitions;');
  }
}
