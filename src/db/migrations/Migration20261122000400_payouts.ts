import { Migration } from '@mikro-orm/migrations';

/**
 * On-chain payouts (AUTO_WITHDRAW deposits and merchant withdrawals), the hot wallet's nonce
 * rows, risk decisions, chain health, and the sandbox's chain and risk scenarios.
 */
export class Migration20261122000400_payouts extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table withdrawals (
        id text primary key,
        merchant_id text not null references merchants(id),
        amount numeric(26, 6) not null check (amount > 0),
        asset text not null check (asset in ('USDC', 'USDT')),
        chain text not null check (chain in ('BASE', 'ETHEREUM', 'POLYGON')),
        destination_address text not null,
        status text not null check (status in ('PENDING', 'BROADCAST', 'COMPLETED', 'FAILED')),
        tx_hash text,
        -- Internal only (risk decisions are never exposed): why a withdrawal failed.
        failure_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((status = 'FAILED') = (failure_reason is not null))
      );`);
    this.addSql(
      'create index withdrawals_merchant_idx on withdrawals (merchant_id, created_at desc, id desc);',
    );

    // One row per on-chain transfer we owe: exactly one per AUTO_WITHDRAW deposit or withdrawal.
    // A nonce, once taken, belongs to one payout forever (unique), and a SIGNED payout is never
    // abandoned, so the hot wallet's nonces are neither reused nor skipped.
    this.addSql(`
      create table payouts (
        id text primary key,
        deposit_id text unique references deposits(id),
        withdrawal_id text unique references withdrawals(id),
        merchant_id text not null references merchants(id),
        chain text not null check (chain in ('BASE', 'ETHEREUM', 'POLYGON')),
        asset text not null check (asset in ('USDC', 'USDT')),
        to_address text not null,
        amount numeric(26, 6) not null check (amount > 0),
        amount_base_units numeric(78, 0) not null check (amount_base_units > 0),
        status text not null check (status in ('PENDING', 'SIGNED', 'CONFIRMED', 'FAILED', 'CANCELLED')),
        from_address text,
        token_address text,
        nonce bigint,
        tx_hash text,
        signed_at timestamptz,
        broadcast_at timestamptz,
        last_broadcast_at timestamptz,
        confirmed_at timestamptz,
        block_number bigint,
        cancel_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((deposit_id is null) <> (withdrawal_id is null)),
        check ((status = 'PENDING' or status = 'CANCELLED') = (nonce is null)),
        check (status <> 'CANCELLED' or cancel_reason is not null),
        unique (chain, from_address, nonce)
      );`);
    this.addSql(
      `create index payouts_open_idx on payouts (chain, status, created_at)
         where status in ('PENDING', 'SIGNED');`,
    );
    // Every signed transaction, kept as bytes: a retry rebroadcasts exactly these, and a fee
    // bump adds another at the same nonce (whichever is mined settles the payout).
    this.addSql(`
      create table payout_transactions (
        hash text primary key,
        payout_id text not null references payouts(id),
        nonce bigint not null,
        raw_tx text not null,
        max_fee_per_gas numeric(78, 0) not null,
        max_priority_fee_per_gas numeric(78, 0) not null,
        created_at timestamptz not null
      );`);
    this.addSql(
      'create index payout_transactions_payout_idx on payout_transactions (payout_id, created_at);',
    );
    this.addSql(`
      create table hot_wallet_nonces (
        chain text not null,
        address text not null,
        next_nonce bigint not null check (next_nonce >= 0),
        updated_at timestamptz not null,
        primary key (chain, address)
      );`);
    this.addSql(`
      create function payouts_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('payout_events', json_build_object(
          'payout_id', new.id, 'chain', new.chain, 'status', new.status)::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger payouts_notify after insert on payouts
        for each row execute function payouts_notify();`);

    // Risk decisions: stored for the operator, never exposed through the API.
    this.addSql(`
      create table risk_decisions (
        id text primary key,
        payout_id text not null references payouts(id),
        approved boolean not null,
        rules jsonb not null,
        decided_at timestamptz not null
      );`);
    this.addSql('create index risk_decisions_payout_idx on risk_decisions (payout_id);');

    this.addSql(`
      create table chain_status (
        chain text primary key check (chain in ('BASE', 'ETHEREUM', 'POLYGON')),
        healthy boolean not null,
        down_since timestamptz,
        block_number bigint,
        detail text,
        checked_at timestamptz not null
      );`);

    // Withdrawal events share the outbox with deposit events.
    this.addSql('alter table events add column withdrawal_id text references withdrawals(id);');
    this.addSql('create index events_withdrawal_idx on events (withdrawal_id, seq);');
    this.addSql(`
      create function withdrawal_snapshot(w withdrawals) returns jsonb language sql stable as $$
        select (to_jsonb(w) - 'failure_reason') || jsonb_build_object('amount', w.amount::text)
      $$;`);
    this.addSql(`
      create function withdrawals_status_event() returns trigger language plpgsql as $$
      declare
        event_kind text;
        event_seq bigint;
      begin
        if tg_op = 'UPDATE' and new.status = old.status then
          return null;
        end if;
        if tg_op = 'UPDATE' and old.status in ('COMPLETED', 'FAILED') then
          raise exception 'withdrawal % is final (%)', new.id, old.status
            using errcode = 'check_violation';
        end if;
        event_kind := case new.status
          when 'COMPLETED' then 'withdrawal.completed'
          when 'FAILED' then 'withdrawal.failed'
        end;
        if event_kind is null then
          return null;
        end if;
        insert into events (id, kind, merchant_id, withdrawal_id, status, snapshot, created_at)
        values ('evt_' || replace(gen_random_uuid()::text, '-', ''), event_kind, new.merchant_id,
                new.id, new.status, withdrawal_snapshot(new), new.updated_at)
        returning seq into event_seq;
        perform pg_notify('withdrawal_events', json_build_object(
          'seq', event_seq, 'kind', event_kind, 'withdrawal_id', new.id,
          'merchant_id', new.merchant_id, 'status', new.status)::text);
        return null;
      end $$;`);
    this.addSql(`
      create trigger withdrawals_status_event after insert or update of status on withdrawals
        for each row execute function withdrawals_status_event();`);

    // Payout ledger transactions name their payout; each kind happens once per payout.
    this.addSql(
      'alter table ledger_transactions add column payout_id text references payouts(id);',
    );
    this.addSql(`
      create unique index ledger_transactions_once_per_payout
        on ledger_transactions (payout_id, kind) where payout_id is not null;`);

    this.addSql(`
      alter table sandbox_scenarios
        add column chain_outage text[] not null default '{}'
          check (chain_outage <@ array['BASE', 'ETHEREUM', 'POLYGON']),
        add column risk_reject boolean not null default false;`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table sandbox_scenarios drop column chain_outage, drop column risk_reject;');
    this.addSql('drop index if exists ledger_transactions_once_per_payout;');
    this.addSql('alter table ledger_transactions drop column payout_id;');
    this.addSql('drop trigger if exists withdrawals_status_event on withdrawals;');
    this.addSql('drop function if exists withdrawals_status_event();');
    this.addSql('drop function if exists withdrawal_snapshot(withdrawals);');
    this.addSql('alter table events drop column withdrawal_id;');
    this.addSql('drop table if exists chain_status;');
    this.addSql('drop table if exists risk_decisions;');
    this.addSql('drop trigger if exists payouts_notify on payouts;');
    this.addSql('drop function if exists payouts_notify();');
    this.addSql('drop table if exists hot_wallet_nonces;');
    this.addSql('drop table if exists payout_transactions;');
    this.addSql('drop table if exists payouts;');
    this.addSql('drop table if exists withdrawals;');
  }
}
