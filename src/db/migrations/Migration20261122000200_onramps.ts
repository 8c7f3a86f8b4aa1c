import { Migration } from '@mikro-orm/migrations';

/** Onramps, the virtual-account pool with its 365-day reuse guarantee, quotas, idempotency. */
export class Migration20261122000200_onramps extends Migration {
  override async up(): Promise<void> {
    this.addSql('create extension if not exists btree_gist;');
    this.addSql(`
      create table virtual_accounts (
        account_number text primary key check (account_number ~ '^[0-9]{10}$'),
        bank_code text not null,
        created_at timestamptz not null
      );`);
    this.addSql('create sequence virtual_account_serial minvalue 1 maxvalue 999999999;');
    // One row per hand-out. `cooldown_until` is released_at + 365 days (infinity while held);
    // the exclusion constraint makes the database refuse any hand-out of a number inside an
    // earlier hand-out's [assigned_at, cooldown_until) window, whatever the code does.
    this.addSql(`
      create table virtual_account_assignments (
        id bigserial primary key,
        account_number text not null references virtual_accounts(account_number),
        onramp_id text not null unique,
        assigned_at timestamptz not null,
        released_at timestamptz,
        cooldown_until timestamptz not null,
        check (released_at is null or released_at >= assigned_at),
        constraint virtual_account_not_reused_within_365_days exclude using gist (
          account_number with =,
          tstzrange(assigned_at, cooldown_until) with &&
        )
      );`);
    this.addSql(`
      create function virtual_account_cooldown() returns trigger language plpgsql as $$
      begin
        new.cooldown_until := coalesce(new.released_at + interval '365 days', 'infinity'::timestamptz);
        if tg_op = 'UPDATE' and old.released_at is not null and new.released_at is distinct from old.released_at then
          raise exception 'virtual account assignment % was already released', old.id
            using errcode = 'restrict_violation';
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger virtual_account_cooldown before insert or update on virtual_account_assignments
        for each row execute function virtual_account_cooldown();`);
    this.addSql(
      'create index virtual_account_assignments_number_idx on virtual_account_assignments (account_number, cooldown_until desc);',
    );

    this.addSql(`
      create table onramps (
        id text primary key,
        merchant_id text not null references merchants(id),
        type text not null check (type in ('THROWAWAY', 'EPHEMERAL', 'PERMANENT')),
        status text not null check (status in ('ACTIVE', 'EXPIRED', 'COMPLETED', 'DEACTIVATED')),
        rate_id text references rates(id),
        payment_reference text not null unique,
        account_number text not null references virtual_accounts(account_number),
        account_name text not null,
        bank_name text not null,
        bank_code text not null,
        user_email text not null,
        settlement_mode text not null check (settlement_mode in ('AUTO_WITHDRAW', 'MERCHANT_BALANCE')),
        settlement_asset text check (settlement_asset in ('USDC', 'USDT')),
        settlement_chain text check (settlement_chain in ('BASE', 'ETHEREUM', 'POLYGON')),
        destination_address text,
        client_secret_hash text not null unique,
        expires_at timestamptz,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((type = 'PERMANENT') = (rate_id is null)),
        check ((type = 'PERMANENT') = (expires_at is null)),
        check (
          (settlement_mode = 'MERCHANT_BALANCE' and settlement_asset is null and settlement_chain is null and destination_address is null)
          or (settlement_mode = 'AUTO_WITHDRAW' and settlement_asset is not null and settlement_chain is not null and destination_address is not null)
        )
      );`);
    this.addSql(
      'create index onramps_merchant_created_idx on onramps (merchant_id, created_at desc, id desc);',
    );
    this.addSql(
      "create index onramps_active_expiry_idx on onramps (expires_at) where status = 'ACTIVE';",
    );
    // Settlement is fixed at creation: the database refuses to change it, or whose onramp it is.
    this.addSql(`
      create function onramps_settlement_immutable() returns trigger language plpgsql as $$
      begin
        if (new.merchant_id, new.type, new.rate_id, new.settlement_mode, new.settlement_asset,
            new.settlement_chain, new.destination_address, new.account_number, new.payment_reference)
           is distinct from
           (old.merchant_id, old.type, old.rate_id, old.settlement_mode, old.settlement_asset,
            old.settlement_chain, old.destination_address, old.account_number, old.payment_reference) then
          raise exception 'onramp % settlement and identity are immutable', old.id
            using errcode = 'restrict_violation';
        end if;
        return new;
      end $$;`);
    this.addSql(`
      create trigger onramps_settlement_immutable before update on onramps
        for each row execute function onramps_settlement_immutable();`);

    // Onramps created per merchant per Africa/Lagos day; the row lock serialises the count.
    this.addSql(`
      create table merchant_daily_onramps (
        merchant_id text not null references merchants(id),
        day date not null,
        created integer not null check (created >= 0),
        primary key (merchant_id, day)
      );`);

    this.addSql(`
      create table idempotency_keys (
        merchant_id text not null,
        key text not null check (length(key) between 1 and 255),
        method text not null,
        path text not null,
        request_hash text not null,
        state text not null check (state in ('IN_PROGRESS', 'COMPLETED')),
        response_status integer,
        response_body jsonb,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        primary key (merchant_id, key)
      );`);
    this.addSql('create index idempotency_keys_expiry_idx on idempotency_keys (expires_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists idempotency_keys;');
    this.addSql('drop table if exists merchant_daily_onramps;');
    this.addSql('drop trigger if exists onramps_settlement_immutable on onramps;');
    this.addSql('drop function if exists onramps_settlement_immutable();');
    this.addSql('drop table if exists onramps;');
    this.addSql('drop table if exists virtual_account_assignments;');
    this.addSql('drop function if exists virtual_account_cooldown();');
    this.addSql('drop sequence if exists virtual_account_serial;');
    this.addSql('drop table if exists virtual_accounts;');
  }
}
