/**
 * Deposits in each status, for the `onramp_deposits` gauge (counted on a timer, never per
 * scrape). The deposits module owns the table, so the count is written here.
 */
export const DEPOSITS_BY_STATUS_SQL =
  'select status, count(*) as count from deposits group by status';
