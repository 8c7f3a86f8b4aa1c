import { Migration } from '@mikro-orm/migrations';

/** Merchants, API keys, immutable rates, shared rate-limit counters, sandbox scenarios. */
export class Migration20261122000100_foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table merchants (
        id text primary key,
        name text not null check (length(name) between 1 and 200),
        status text not null default 'ACTIVE' check (status in ('ACTIVE', 'FROZEN')),
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    this.addSql(`
      create table api_keys (
        id text primary key,
        merchant_id text not null references merchants(id),
        key_hash text not null unique,
        key_prefix text not null,
        environment text not null check (environment in ('sandbox', 'production')),
        created_at timestamptz not null,
        revoked_at timestamptz
      );`);
    this.addSql(`create index api_keys_merchant_idx on api_keys (merchant_id);`);
    this.addSql(`
      create table rates (
        id text primary key,
        from_currency text not null check (from_currency = 'NGN'),
        to_currency text not null check (to_currency in ('USDC', 'USDT', 'USD')),
        market_rate numeric(30, 12) not null check (market_rate > 0),
        rate numeric(30, 6) not null check (rate > 0),
        inverse_rate numeric(30, 12) not null check (inverse_rate > 0),
        fee_bps integer not null check (fee_bps >= 0 and fee_bps < 10000),
        min_deposit_ngn numeric(20, 2) not null check (min_deposit_ngn >= 0),
        source text not null,
        created_at timestamptz not null,
        expires_at timestamptz not null,
        check (expires_at > created_at)
      );`);
    this.addSql(`create index rates_latest_idx on rates (to_currency, created_at desc);`);
    // A published rate cannot be modified, extended or removed: enforced here, not only in code.
    this.addSql(`
      create function rates_immutable() returns trigger language plpgsql as $$
      begin
        raise exception 'rates are immutable: % refused on rate %', tg_op, old.id
          using errcode = 'restrict_violation';
      end $$;`);
    this.addSql(`
      create trigger rates_immutable before update or delete on rates
        for each row execute function rates_immutable();`);
    this.addSql(`
      create table rate_limit_windows (
        bucket text not null,
        window_start timestamptz not null,
        hits integer not null,
        primary key (bucket, window_start)
      );`);
    this.addSql(`
      create table sandbox_scenarios (
        merchant_id text primary key references merchants(id),
        rate_source_down boolean not null default false,
        updated_at timestamptz not null
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists sandbox_scenarios;');
    this.addSql('drop table if exists rate_limit_windows;');
    this.addSql('drop trigger if exists rates_immutable on rates;');
    this.addSql('drop table if exists rates;');
    this.addSql('drop function if exists rates_immutable();');
    this.addSql('drop table if exists api_keys;');
    this.addSql('drop table if exists merchants;');
  }
}
