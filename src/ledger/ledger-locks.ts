import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import type { Dec } from '../domain/money';
import { lockMerchantBalances } from './merchant-balances';

/**
 * Reads of the ledger's tables that other modules need inside their own transactions. The
 * ledger owns its tables: other modules ask here rather than writing the SQL themselves.
 */

/**
 * The merchant's available USD (usd_available less what it owes, so below zero after a
 * liable reversal), with both balance rows locked until the caller's commit: a withdrawal
 * checks and debits under this lock, so two cannot both spend the same dollars.
 */
export async function lockAvailableBalance(tx: EntityManager, merchantId: string): Promise<Dec> {
  const balances = (
    await lockMerchantBalances(tx, [merchantId], ['usd_available', 'usd_owed'])
  ).get(merchantId)!;
  return balances.usd_available.minus(balances.usd_owed);
}

/** Whether any ledger transaction of these kinds was written for the payout. */
export async function payoutHasEntries(
  tx: EntityManager,
  payoutId: string,
  kinds: readonly string[],
): Promise<boolean> {
  const rows = await executeInTransaction<{ n: string }>(
    tx,
    `select count(*)::text as n from ledger_transactions
      where payout_id = ? and kind in (${kinds.map(() => '?').join(', ')})`,
    [payoutId, ...kinds],
  );
  return rows[0]?.n !== '0';
}
