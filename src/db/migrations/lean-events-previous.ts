/**
 * The per-row event triggers as `Migration20261122000300_deposits` and
 * `Migration20261122000500_webhooks` created them, copied verbatim so that
 * `Migration20261125000400_lean_events.down()` restores exactly what its `up()` replaced.
 */
export const PREVIOUS_DEPOSIT_STATUS_EVENT = [
  `
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
      end $$;`,
  `
      create trigger deposits_status_event after insert or update of status on deposits
        for each row execute function deposits_status_event();`,
];

export const PREVIOUS_EVENTS_WEBHOOK_DELIVERY_TRIGGER = `
      create trigger events_webhook_delivery after insert on events
        for each row execute function events_webhook_delivery();`;

export const PREVIOUS_DEPOSITS_IDENTITY_TRIGGER = `
      create trigger deposits_identity_immutable before update on deposits
        for each row execute function deposits_identity_immutable();`;
