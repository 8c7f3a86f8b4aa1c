/**
 * Deposits in each status, for the `onramp_deposits` gauge (counted on a timer, never per
 * scrape). The deposits module owns the table, so the count is written here.
 */
export const DEPOSITS_BY_STATUS_SQL =
  'select status, count(*) as count from deposits group by status';

/** Whether a transfer with this reference was recorded as unmatched (no onramp held its account). */
export const UNMATCHED_TRANSFER_SQL = 'select 1 from unmatched_transfers where bank_reference = ?';

/**
 * Per status present: key (the status), amount (NGN received, as text), n (deposits) and held
 * (NGN still unconverted and unreversed, as text), for the treasury report's one statement.
 * No parameters and no question mark.
 */
export const DEPOSIT_TOTALS_BY_STATUS_SQL = `
      select d.status as key, sum(d.amount_ngn)::text as amount, count(*)::int as n,
             coalesce(sum(d.amount_ngn) filter (where d.fx_executed_at is null
                                                  and d.reversed_at is null), 0)::text as held
        from deposits d
       group by d.status`;
