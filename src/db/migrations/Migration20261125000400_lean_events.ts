import { Migration } from '@mikro-orm/migrations';
import {
  PREVIOUS_DEPOSIT_STATUS_EVENT,
  PREVIOUS_DEPOSITS_IDENTITY_TRIGGER,
  PREVIOUS_EVENTS_WEBHOOK_DELIVERY_TRIGGER,
} from './lean-events-previous';

/** The deliveries owed for the `written` events: one per merchant with an enabled endpoint. */
const OWED_PER_MERCHANT = `
      insert into webhook_deliveries
        (id, event_id, merchant_id, status, next_attempt_at, created_at, updated_at)
      select 'whd_' || replace(gen_random_uuid()::text, '-', ''), w.id, w.merchant_id,
             'PENDING', w.created_at, w.created_at, w.created_at
        from written w
        join webhook_endpoints e on e.merchant_id = w.merchant_id and e.enabled
       order by w.seq
      returning merchant_id
    `;

/**
 * The one statement a deposits trigger runs for a whole INSERT or UPDATE: `moved` (the
 * deposits that entered a status, in the order the statement wrote them, with their event
 * kind) becomes their events, the webhook deliveries owed for them, one `deposit_events`
 * notice per event in seq order and one `webhook_deliveries` notice per merchant. A refused
 * move raises while `moved` is computed (`deposit_move_refused`), so it aborts the statement
 * with nothing written and nothing notified.
 */
export function writeDepositEvents(moved: string, owed: string = OWED_PER_MERCHANT): string {
  return `
    with moved as materialized (${moved}),
    written as (
      insert into events (id, kind, merchant_id, deposit_id, status, snapshot, created_at)
      select 'evt_' || replace(gen_random_uuid()::text, '-', ''), m.kind, m.merchant_id, m.id,
             m.status, m.snapshot, m.updated_at
        from moved m
       order by m.ord
      returning id, seq, kind, merchant_id, deposit_id, status, created_at
    ),
    owed as (${owed})
    select
      (select count(pg_notify('deposit_events', json_build_object(
                'seq', n.seq, 'kind', n.kind, 'deposit_id', n.deposit_id,
                'merchant_id', n.merchant_id, 'onramp_id', n.onramp_id,
                'status', n.status, 'settlement_mode', n.settlement_mode)::text))
         from (select w.seq, w.kind, w.deposit_id, w.merchant_id, m.onramp_id, w.status,
                      m.settlement_mode
                 from written w join moved m on m.id = w.deposit_id
                order by w.seq) n),
      (select count(pg_notify('webhook_deliveries', o.merchant_id))
         from (select distinct merchant_id from owed) o)
      into deposit_notices, webhook_notices;`;
}

/** `moved` columns from a transition-table row `(n.deposit)` and its ordinal `n.ord`. */
function movedColumns(kind: string): string {
  return `(n.deposit).id, (n.deposit).merchant_id, (n.deposit).onramp_id, (n.deposit).status,
          (n.deposit).settlement_mode, (n.deposit).updated_at,
          deposit_snapshot(n.deposit) as snapshot, n.ord, ${kind} as kind`;
}

const EVENT_KIND = `case (n.deposit).status
          when 'PENDING_FX' then 'deposit.created'
          when 'PENDING_WITHDRAWAL' then 'deposit.pending_withdrawal'
          when 'SETTLED' then 'deposit.settled'
          when 'FAILED' then 'deposit.failed'
          when 'FLAGGED' then 'deposit.flagged'
          when 'REVERSED' then 'deposit.reversed'
        end`;

// Rows of a transition table in the order the statement wrote them (a tuplestore is read
// back in write order), as `deposits` values so `deposit_snapshot` applies.
const numbered = (table: string) =>
  `(select d::deposits as deposit, row_number() over () as ord from ${table} d) n`;

export const CREATED = `
      select ${movedColumns(`case when (n.deposit).status in ('PENDING_FX', 'FLAGGED', 'FAILED')
                then ${EVENT_KIND}
                else deposit_move_refused((n.deposit).id, null, (n.deposit).status) end`)}
        from ${numbered('created_deposits')}`;

// Old and new rows pair by id: a deposit's id never changes (its creation event references it).
export const MOVED = `
      select ${movedColumns(`case when exists (select 1 from deposit_transitions t
                                   where t.from_status = o.status
                                     and t.to_status = (n.deposit).status)
                then ${EVENT_KIND}
                else deposit_move_refused((n.deposit).id, o.status, (n.deposit).status) end`)}
        from ${numbered('new_deposits')}
        join old_deposits o on o.id = (n.deposit).id
       where o.status <> (n.deposit).status`;

/**
 * Deposit events written once per statement instead of once per row. Before, each deposit
 * entering a status ran its own trigger (transition lookup, event insert, NOTIFY) and each
 * event another (webhook delivery insert, NOTIFY): about ten statements per status change,
 * a hundred for a batch of ten. Now a statement-level trigger with transition tables checks
 * every move against `deposit_transitions`, writes all the events and their webhook
 * deliveries and sends the notices in ONE statement, whatever the number of rows. NOTIFY
 * payloads are unchanged (`src/events/channels.ts` parses them). Withdrawal events keep
 * their per-row trigger and get their deliveries from `events_webhook_delivery`, now skipped
 * for deposit events. The identity check only runs when an UPDATE names an identity column.
 */
export class Migration20261125000400_lean_events extends Migration {
  override async up(): Promise<void> {
    this.addSql('drop trigger deposits_status_event on deposits;');
    this.addSql('drop function deposits_status_event();');
    this.addSql(`
      create function deposit_move_refused(deposit_id text, from_status text, to_status text)
        returns text language plpgsql as $$
      begin
        if from_status is null then
          raise exception 'deposit % cannot start in %', deposit_id, to_status
            using errcode = 'check_violation';
        end if;
        raise exception 'deposit % cannot move from % to %', deposit_id, from_status, to_status
          using errcode = 'check_violation';
      end $$;`);
    for (const [name, moved] of [
      ['deposits_created_events', CREATED],
      ['deposits_moved_events', MOVED],
    ] as const) {
      this.addSql(`
        create function ${name}() returns trigger language plpgsql as $$
        declare
          deposit_notices bigint;
          webhook_notices bigint;
        begin
          ${writeDepositEvents(moved)}
          return null;
        end $$;`);
    }
    // Two triggers: a trigger with transition tables may have only one event, and no column
    // list, so the update trigger fires on every UPDATE and finds the status changes itself.
    this.addSql(`
      create trigger deposits_created_events after insert on deposits
        referencing new table as created_deposits
        for each statement execute function deposits_created_events();`);
    this.addSql(`
      create trigger deposits_moved_events after update on deposits
        referencing old table as old_deposits new table as new_deposits
        for each statement execute function deposits_moved_events();`);

    this.addSql('drop trigger events_webhook_delivery on events;');
    this.addSql(`
      create trigger events_webhook_delivery after insert on events
        for each row when (new.deposit_id is null) execute function events_webhook_delivery();`);

    // Same guarantee: a column an UPDATE does not name cannot change (no other BEFORE trigger
    // on deposits rewrites the row).
    this.addSql('drop trigger deposits_identity_immutable on deposits;');
    this.addSql(`
      create trigger deposits_identity_immutable
        before update of onramp_id, merchant_id, bank_reference, amount_ngn, created_at,
                         settlement_mode, lagos_day on deposits
        for each row execute function deposits_identity_immutable();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger deposits_identity_immutable on deposits;');
    this.addSql(PREVIOUS_DEPOSITS_IDENTITY_TRIGGER);
    this.addSql('drop trigger events_webhook_delivery on events;');
    this.addSql(PREVIOUS_EVENTS_WEBHOOK_DELIVERY_TRIGGER);
    this.addSql('drop trigger deposits_moved_events on deposits;');
    this.addSql('drop trigger deposits_created_events on deposits;');
    this.addSql('drop function deposits_moved_events();');
    this.addSql('drop function deposits_created_events();');
    this.addSql('drop function deposit_move_refused(text, text, text);');
    for (const sql of PREVIOUS_DEPOSIT_STATUS_EVENT) this.addSql(sql);
  }
}
