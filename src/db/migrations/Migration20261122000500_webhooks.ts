import { Migration } from '@mikro-orm/migrations';

/**
 * Webhooks: one endpoint per merchant, one delivery per outbox event (plus replays), and every
 * attempt. Deliveries are written by a trigger on `events`, so an event and its delivery
 * commit together: no status change can be made without the merchant being owed a webhook.
 */
export class Migration20261122000500_webhooks extends Migration {
  override async up(): Promise<void> {
    // `secret` signs; during a rotation `previous_secret` signs too until it expires.
    this.addSql(`
      create table webhook_endpoints (
        merchant_id text primary key references merchants(id),
        url text not null,
        secret text not null,
        previous_secret text,
        previous_secret_expires_at timestamptz,
        enabled boolean not null,
        disabled_reason text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((previous_secret is null) = (previous_secret_expires_at is null)),
        check (enabled = (disabled_reason is null))
      );`);

    // A delivery is PENDING with `next_attempt_at` until it SUCCEEDED or FAILED. A runner
    // claims it by setting a lease (token and expiry); an attempt is recorded only under the
    // lease it was made with, so a runner that died mid-attempt only costs a repeat.
    this.addSql(`
      create table webhook_deliveries (
        id text primary key,
        event_id text not null references events(id),
        merchant_id text not null references merchants(id),
        replay boolean not null default false,
        status text not null check (status in ('PENDING', 'SUCCEEDED', 'FAILED')),
        attempt_count int not null default 0 check (attempt_count between 0 and 11),
        first_attempt_at timestamptz,
        next_attempt_at timestamptz,
        lease_token text,
        lease_until timestamptz,
        last_status_code int,
        last_error text,
        created_at timestamptz not null,
        updated_at timestamptz not null,
        check ((status = 'PENDING') = (next_attempt_at is not null)),
        check ((lease_token is null) = (lease_until is null))
      );`);
    this.addSql(`
      create index webhook_deliveries_due_idx on webhook_deliveries (next_attempt_at)
        where status = 'PENDING';`);
    this.addSql(`
      create index webhook_deliveries_merchant_idx
        on webhook_deliveries (merchant_id, created_at desc, id desc);`);
    this.addSql('create index webhook_deliveries_event_idx on webhook_deliveries (event_id);');

    this.addSql(`
      create table webhook_attempts (
        delivery_id text not null references webhook_deliveries(id),
        number int not null check (number between 1 and 11),
        url text not null,
        attempted_at timestamptz not null,
        status_code int,
        latency_ms int not null check (latency_ms >= 0),
        error text,
        primary key (delivery_id, number)
      );`);

    // Every event is owed to the merchant's endpoint, if it has an enabled one. NOTIFY (at
    // commit) wakes the job runners for the first attempt; their sweep covers a lost notice.
    this.addSql(`
      create function events_webhook_delivery() returns trigger language plpgsql as $$
      begin
        insert into webhook_deliveries
          (id, event_id, merchant_id, status, next_attempt_at, created_at, updated_at)
        select 'whd_' || replace(gen_random_uuid()::text, '-', ''), new.id, new.merchant_id,
               'PENDING', new.created_at, new.created_at, new.created_at
          from webhook_endpoints
         where merchant_id = new.merchant_id and enabled;
        if found then
          perform pg_notify('webhook_deliveries', new.merchant_id);
        end if;
        return null;
      end $$;`);
    this.addSql(`
      create trigger events_webhook_delivery after insert on events
        for each row execute function events_webhook_delivery();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists events_webhook_delivery on events;');
    this.addSql('drop function if exists events_webhook_delivery();');
    this.addSql('drop table if exists webhook_attempts;');
    this.addSql('drop table if exists webhook_deliveries;');
    this.addSql('drop table if exists webhook_endpoints;');
  }
}
