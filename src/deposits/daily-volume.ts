import type { EntityManager } from '@mikro-orm/postgresql';
import { dec, type Dec } from '../domain/money';
import { executeInTransaction } from '../db/locks';

export const SYSTEM_SCOPE = 'system';

export interface DailyTotals {
  merchantUsd: Dec;
  systemUsd: Dec;
}

/**
 * USD counted against the daily limits, per Africa/Lagos day, for a merchant and for the
 * whole system. Every writer goes through this one statement, which takes the two rows in one
 * order (the merchant's, then the system's: the VALUES order, row by row), creating them on a
 * day's first deposits. Concurrent deposits serialise on the rows instead of overshooting a
 * limit, and cannot deadlock on them.
 *
 * Why not `select ... order by scope for update` first, then insert what is missing (the old
 * way): that select's snapshot can miss a merchant row another transaction has just created,
 * so it locked the system row alone, then the merchant row after it, while a later transaction
 * held the merchant row and waited for the system row (`deadlock detected`, seen with 15
 * transfers racing for one merchant's first totals of a day).
 *
 * Adds `delta` and returns the totals after it. A delta of 0 only locks and reads them.
 */
export async function addToDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
  delta: Dec,
): Promise<DailyTotals> {
  // The check (usd >= 0) applies to the proposed row before the conflict is seen, so a
  // removal proposes 0; a removal that created a row removed from nothing, which is a bug.
  const proposed = delta.isNeg() ? '0' : delta.toFixed();
  const rows = await executeInTransaction<{ scope: string; usd: string; created: boolean }>(
    tx,
    `insert into deposit_daily_volume as v (scope, day, usd)
     values (?, ?::date, ?::numeric), (?, ?::date, ?::numeric)
     on conflict (scope, day) do update set usd = v.usd + ?::numeric
     returning v.scope, v.usd::text as usd, (v.xmax = 0) as created`,
    [merchantId, day, proposed, SYSTEM_SCOPE, day, proposed, delta.toFixed()],
  );
  if (delta.isNeg() && rows.some((r) => r.created)) {
    throw new Error(`daily totals of ${merchantId} on ${day}: removing from a day never counted`);
  }
  const usdOf = (scope: string) => dec(rows.find((r) => r.scope === scope)!.usd);
  return { merchantUsd: usdOf(merchantId), systemUsd: usdOf(SYSTEM_SCOPE) };
}

/** Locks a day's two rows (creating them if needed) and reads them: `addToDailyVolume` of 0. */
export function lockDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
): Promise<DailyTotals> {
  return addToDailyVolume(tx, merchantId, day, dec(0));
}

/** Adds (or with a negative delta, removes) a deposit's USD: status transitions use it. */
export async function adjustDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
  delta: Dec,
): Promise<void> {
  if (delta.isZero()) return;
  await addToDailyVolume(tx, merchantId, day, delta);
}
