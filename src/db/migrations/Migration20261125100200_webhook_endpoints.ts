import { Migration } from '@mikro-orm/migrations';
import { CREATED, MOVED, writeDepositEvents } from './Migration20261125000400_lean_events';

/**
 * The deliveries owed for the `written` deposit events: one per enabled endpoint of the
 * event's merchant that subscribed to the event's kind (or to `*`), in the same statement.
 */
export const OWED_PER_ENDPOINT = `
      insert into webhook_deliveries
        (id, event_id, merchant_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
      select 'whd_' || replace(gen_random_uuid()::text, '-', ''), w.id, w.merchant_id, e.id,
             'PENDING', w.created_at, w.created_at, w.created_at
        from written w
        join webhook_endpoints e
          on e.merchant_id = w.merchant_id and e.enabled
         and (e.enabled_events && array['*', w.kind])
       order by w.seq, e.created_at, e.id
      returning merchant_id
    `;

function depositEventFunctions(owed?: string): string[] {
  return [
    ['deposits_created_events', CREATED],
    ['deposits_moved_events', MOVED],
  ].map(
    ([name, moved]) => `
      create or replace function ${name}() returns trigger language plpgsql as $$
      declare
        deposit_notices bigint;
        webhook_notices bigint;
      begin
        ${writeDepositEvents(moved, owed)}
        return null;
      end $$;`,
  );
}

/** The per-event trigger (events other than deposits'), with `owed` as its insert. */
function eventsWebhookDelivery(perEndpoint: boolean): string {
  const insert = perEndpoint
    ? `insert into webhook_deliveries
          (id, event_id, merchant_id, endpoint_id, status, next_attempt_at, created_at, updated_at)
        select 'whd_' || replace(gen_random_uuid()::text, '-', ''), new.id, new.merchant_id,
               e.id, 'PENDING', new.created_at, new.created_at, new.created_at
          from webhook_endpoints e
         where e.merchant_id = new.merchant_id and e.enabled
           and e.enabled_events && array['*', new.kind]
         order by e.created_at, e.id;`
    : `insert into webhook_deliveries
          (id, event_id, merchant_id, status, next_attempt_at, created_at, updated_at)
        select 'whd_' || replace(gen_random_uuid()::text, '-', ''), new.id, new.merchant_id,
               'PENDING', new.created_at, new.created_at, new.created_at
          from webhook_endpoints
         where merchant_id = new.merchant_id and enabled;`;
  return `
      create or replace function events_webhook_delivery() returns trigger language plpgsql as $$
      begin
        ${insert}
        if found then
          perform pg_notify('webhook_deliveries', new.merchant_id);
        end if;
        return null;
      end $$;`;
}

/**
 * Several webhook endpoints per merchant (at most 10, counted by the service under a lock).
 * Each endpoint has its own id, secret, URL, event list and status; each delivery names its
 * endpoint. The delivery rows are still written by the statement that writes the event (the
 * deposits' statement triggers, the per-event trigger for the others), now one per enabled
 * endpoint that subscribed to the event's kind: still one statement, whatever the number of
 * endpoints. `test.ping` events get no delivery from the trigger: the test call writes the one
 * delivery to the endpoint it names. A delivery's `endpoint_id` has no foreign key: the log
 * outlives a deleted endpoint (and the check would cost a lookup per delivery).
 */
export class Migration20261125100200_webhook_endpoints extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_endpoints
        add column id text,
        add column enabled_events text[] not null default '{*}',
        add column description text;`);
    this.addSql(`
      update webhook_endpoints
         set id = 'we_' || replace(gen_random_uuid()::text, '-', '');`);
    this.addSql(`
      alter table webhook_endpoints
        alter column id set not null,
        drop constraint webhook_endpoints_pkey,
        add primary key (id),
        add check (cardinality(enabled_events) > 0);`);
    this.addSql(`
      create index webhook_endpoints_merchant_idx
        on webhook_endpoints (merchant_id, created_at, id);`);

    this.addSql('alter table webhook_deliveries add column endpoint_id text;');
    this.addSql(`
      update webhook_deliveries d set endpoint_id = e.id
        from webhook_endpoints e where e.merchant_id = d.merchant_id;`);
    this.addSql(`
      create index webhook_deliveries_endpoint_idx
        on webhook_deliveries (endpoint_id, created_at desc, id desc);`);

    this.addSql(eventsWebhookDelivery(true));
    this.addSql('drop trigger events_webhook_delivery on events;');
    this.addSql(`
      create trigger events_webhook_delivery after insert on events
        for each row when (new.deposit_id is null and new.kind <> 'test.ping')
        execute function events_webhook_delivery();`);
    for (const sql of depositEventFunctions(OWED_PER_ENDPOINT)) this.addSql(sql);
  }

  override async down(): Promise<void> {
    for (const sql of depositEventFunctions()) this.addSql(sql);
    this.addSql('drop trigger events_webhook_delivery on events;');
    this.addSql(`
      create trigger events_webhook_delivery after insert on events
        for each row when (new.deposit_id is null) execute function events_webhook_delivery();`);
    this.addSql(eventsWebhookDelivery(false));
    this.addSql('drop index webhook_deliveries_endpoint_idx;');
    this.addSql('alter table webhook_deliveries drop column endpoint_id;');
    // Back to one endpoint per merchant: the first (oldest) stays.
    this.addSql(`
      delete from webhook_endpoints e
       where exists (select 1 from webhook_endpoints o
                      where o.merchant_id = e.merchant_id
                        and (o.created_at, o.id) < (e.created_at, e.id));`);
    this.addSql('drop index webhook_endpoints_merchant_idx;');
    this.addSql(`
      alter table webhook_endpoints
        drop constraint webhook_endpoints_pkey,
        add primary key (merchant_id),
        drop column id,
        drop column enabled_events,
        drop column description;`);
  }
}
