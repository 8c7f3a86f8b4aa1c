/**
 * The webhook backlog, for its gauges (read at scrape time): `pending`, deliveries not yet
 * delivered nor given up; `due`, those of them whose next attempt is due at the `?` parameter
 * (a timestamp), i.e. waiting for a runner rather than for their retry time; `oldest`, the
 * creation time of the oldest pending one (null when none).
 */
export const WEBHOOK_BACKLOG_SQL = `
  select count(*) as pending, count(*) filter (where next_attempt_at <= ?) as due,
         min(created_at) as oldest
    from webhook_deliveries
   where status = 'PENDING'`;
