import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { dec, type Dec } from '../domain/money';
import { merchantAccount } from '../domain/ledger';

/**
 * Reads of the ledger's tables that other modules need inside their own transactions. The
 * ledger owns its tables: other modules ask here rather than writing the SQL themselves.
 */

/**
 * The merchant's available USD, with its balance row locked until the caller's commit: a
 * withdrawal checks and debits under this lock, so two cannot both spend the same dollars.
 */
export async function lockAvailableBalance(tx: EntityManager, merchantId: string): Promise<Dec> {
  const [row] = await executeInTransaction<{ balance: string }>(
    tx,
    'select balance::text as balance from ledger_accounts where id = ? for update',
    [merchantAccount(merchantId, 'usd_available').id],
  );
  return dec(row?.balance ?? '0');
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
