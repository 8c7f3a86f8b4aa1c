/**
 * Deposits in each status, for the `onramp_deposits` gauge (counted on a timer, never per
 * scrape). The deposits module owns the table, so the count is written here.
 */
export const DEPOSITS_BY_STATUS_SQL =
  'select status, count(*) as count from deposits group by status';

/** Whether a transfer with this reference was recorded as unmatched (no onramp held its account). */
export const UNMATCHED_TRANSFER_SQL = 'select 1 from unmatched_transfers where bank_reference = ?';
