import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { merchantAccount, type MerchantBucket } from '../domain/ledger';
import { dec, type Dec } from '../domain/money';

export type MerchantBalances = Record<MerchantBucket, Dec>;

const ZERO = (): MerchantBalances => ({
  usd_available: dec(0),
  usd_pending_withdrawal: dec(0),
  usd_reserved: dec(0),
  usd_owed: dec(0),
});

/**
 * The named accounts of these merchants, locked until the caller's commit in account id order:
 * the order the postings trigger locks them in, so a writer that locks here first and posts
 * later cannot deadlock with one that only posts. An account not yet created reads zero.
 */
export async function lockMerchantBalances(
  tx: EntityManager,
  merchantIds: readonly string[],
  buckets: readonly MerchantBucket[],
): Promise<Map<string, MerchantBalances>> {
  const result = new Map<string, MerchantBalances>();
  const byId = new Map<string, { merchantId: string; bucket: MerchantBucket }>();
  for (const merchantId of new Set(merchantIds)) {
    result.set(merchantId, ZERO());
    for (const bucket of buckets) {
      byId.set(merchantAccount(merchantId, bucket).id, { merchantId, bucket });
    }
  }
  if (byId.size === 0) return result;
  const ids = [...byId.keys()].sort();
  const rows = await executeInTransaction<{ id: string; balance: string }>(
    tx,
    `select id, balance::text as balance from ledger_accounts
      where id in (${ids.map(() => '?').join(', ')}) order by id for no key update`,
    ids,
  );
  for (const row of rows) {
    const { merchantId, bucket } = byId.get(row.id)!;
    result.get(merchantId)![bucket] = dec(row.balance);
  }
  return result;
}
