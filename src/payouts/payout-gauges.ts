/**
 * Payouts not final (PENDING: not signed; SIGNED: sent, not mined) created at or before the `?`
 * parameter (a timestamp), by chain, status and kind (`deposit`: an AUTO_WITHDRAW deposit's,
 * `withdrawal`: a merchant's withdrawal; each withdrawal has exactly one payout, so this counts
 * withdrawals too), with the oldest one's creation time. For the stuck-payouts gauge, read at
 * scrape time; `payouts_open_idx` covers exactly these rows, so the cost is the open payouts'.
 */
export const STUCK_PAYOUTS_SQL = `
  select chain, status, case when deposit_id is null then 'withdrawal' else 'deposit' end as kind,
         count(*) as count, min(created_at) as oldest
    from payouts
   where status in ('PENDING', 'SIGNED') and created_at <= ?
   group by 1, 2, 3`;

/** The statuses `STUCK_PAYOUTS_SQL` counts (every payout status that is not final). */
export const OPEN_PAYOUT_STATUSES = ['PENDING', 'SIGNED'] as const;
