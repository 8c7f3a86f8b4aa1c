import type { EntityManager } from '@mikro-orm/postgresql';
import { dec, type Dec } from '../../domain/money';
import { executeInTransaction } from '../../db/locks';

const SYSTEM = 'system';

/**
 * USD counted against the daily limits, per Africa/Lagos day, for a merchant and for the
 * whole system. Rows are locked merchant first, then system ('mer_...' < 'system'), by every
 * writer, so concurrent deposits serialise on them instead of overshooting a limit.
 */
export async function lockDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
): Promise<{ merchantUsd: Dec; systemUsd: Dec }> {
  // The system row is every deposit's lock: one statement holds both rows (in scope order, as
  // LockRows sits above the sort), and the insert only runs on a day's first deposits.
  let rows = await lockedRows(tx, merchantId, day);
  if (rows.length < 2) {
    await executeInTransaction(
      tx,
      `insert into deposit_daily_volume (scope, day, usd) values (?, ?, 0), (?, ?, 0)
       on conflict (scope, day) do nothing`,
      [merchantId, day, SYSTEM, day],
    );
    rows = await lockedRows(tx, merchantId, day);
  }
  const usdOf = (scope: string) => dec(rows.find((r) => r.scope === scope)!.usd);
  return { merchantUsd: usdOf(merchantId), systemUsd: usdOf(SYSTEM) };
}

/**
 * The same totals read without locking (0 for a day with no row yet): a guess to decide on
 * early, which the caller must confirm under `lockDailyVolume` before it commits.
 */
export async function readDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
): Promise<{ merchantUsd: Dec; systemUsd: Dec }> {
  const rows = await executeInTransaction<{ scope: string; usd: string }>(
    tx,
    'select scope, usd::text as usd from deposit_daily_volume where day = ? and scope in (?, ?)',
    [day, merchantId, SYSTEM],
  );
  const usdOf = (scope: string) => dec(rows.find((r) => r.scope === scope)?.usd ?? '0');
  return { merchantUsd: usdOf(merchantId), systemUsd: usdOf(SYSTEM) };
}

function lockedRows(tx: EntityManager, merchantId: string, day: string) {
  return executeInTransaction<{ scope: string; usd: string }>(
    tx,
    `select scope, usd::text as usd from deposit_daily_volume
      where day = ? and scope in (?, ?) order by scope for update`,
    [day, merchantId, SYSTEM],
  );
}

/** Adds (or with a negative delta, removes) a deposit's USD; the same lock order as above. */
export async function adjustDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
  delta: Dec,
): Promise<void> {
  if (delta.isZero()) return;
  await lockDailyVolume(tx, merchantId, day);
  await addToLockedDailyVolume(tx, merchantId, day, delta);
}

/** `adjustDailyVolume` for a transaction that already holds both rows (`lockDailyVolume`). */
export async function addToLockedDailyVolume(
  tx: EntityManager,
  merchantId: string,
  day: string,
  delta: Dec,
): Promise<void> {
  if (delta.isZero()) return;
  await executeInTransaction(
    tx,
    'update deposit_daily_volume set usd = usd + ? where day = ? and scope in (?, ?)',
    [delta.toFixed(), day, merchantId, SYSTEM],
  );
}
