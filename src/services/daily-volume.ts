import type { EntityManager } from '@mikro-orm/postgresql';
import { dec, type Dec } from '../domain/money';
import { executeInTransaction } from '../db/locks';

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
  await executeInTransaction(
    tx,
    `insert into deposit_daily_volume (scope, day, usd) values (?, ?, 0), (?, ?, 0)
     on conflict (scope, day) do nothing`,
    [merchantId, day, SYSTEM, day],
  );
  const merchant = await executeInTransaction<{ usd: string }>(
    tx,
    'select usd::text as usd from deposit_daily_volume where scope = ? and day = ? for update',
    [merchantId, day],
  );
  const system = await executeInTransaction<{ usd: string }>(
    tx,
    'select usd::text as usd from deposit_daily_volume where scope = ? and day = ? for update',
    [SYSTEM, day],
  );
  return { merchantUsd: dec(merchant[0].usd), systemUsd: dec(system[0].usd) };
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
  for (const scope of [merchantId, SYSTEM]) {
    await executeInTransaction(
      tx,
      'update deposit_daily_volume set usd = usd + ? where scope = ? and day = ?',
      [delta.toFixed(), scope, day],
    );
  }
}
