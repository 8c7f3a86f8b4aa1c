import type { LedgerCheck } from './ledger-check-type';

/**
 * The outbox has no foreign keys (they cost two lookups per event; see
 * Migration20261125000500): its references are checked here instead.
 */
export const EVENT_CHECKS: readonly LedgerCheck[] = [
  {
    name: 'events_reference_rows',
    description: 'Every event names an existing merchant, and its deposit when it has one.',
    sql: `
      select format('event %s (seq %s) names merchant %s%s and deposit %s%s',
                    e.id, e.seq, e.merchant_id, case when m.id is null then ' (missing)' else '' end,
                    coalesce(e.deposit_id, '-'),
                    case when e.deposit_id is not null and d.id is null then ' (missing)' else '' end) as detail
        from events e
        left join merchants m on m.id = e.merchant_id
        left join deposits d on d.id = e.deposit_id
       where m.id is null or (e.deposit_id is not null and d.id is null)`,
  },
];
