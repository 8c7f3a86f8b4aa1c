import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { merchantAccount, transfer } from '../domain/ledger';
import { dec, type Dec } from '../domain/money';
import { splitSettlement } from '../domain/reserves';
import { writeMerchantEvent } from '../events';
import type { LedgerEntry, LedgerService } from './ledger.service';
import { lockMerchantBalances } from './merchant-balances';

interface DueHold {
  deposit_id: string;
  merchant_id: string;
  remaining: string;
}

/**
 * One release run, in the caller's transaction: the holds due by `now` (oldest due first, up
 * to `limit`; holds a reversal is drawing on are skipped and taken by the next run), each
 * merchant's released in one `reserve_release` (usd_reserved to usd_available) and a
 * `debt_repayment` of what it owes, the holds marked released with that transaction, and one
 * `balance.reserve_released` event `{merchant_id, amount, deposit_ids}` per merchant.
 * A hold a reversal drew on entirely has nothing left to release: it stays open at zero and is
 * never due (the partial index leaves it out). Returns how many holds it released.
 */
export async function reserveReleaseEntries(
  tx: EntityManager,
  ledger: LedgerService,
  now: Date,
  limit: number,
): Promise<number> {
  const due = await executeInTransaction<DueHold>(
    tx,
    `select deposit_id, merchant_id, (amount - drawn)::text as remaining from reserve_holds
      where released_at is null and amount > drawn and release_at <= ?
      order by release_at, deposit_id limit ? for update skip locked`,
    [now, limit],
  );
  if (due.length === 0) return 0;
  const byMerchant = new Map<string, DueHold[]>();
  for (const hold of due) {
    byMerchant.set(hold.merchant_id, [...(byMerchant.get(hold.merchant_id) ?? []), hold]);
  }
  const merchantIds = [...byMerchant.keys()].sort();
  const balances = await lockMerchantBalances(tx, merchantIds, [
    'usd_available',
    'usd_owed',
    'usd_reserved',
  ]);
  const entries: LedgerEntry[] = [];
  const released: Array<{ merchantId: string; amount: Dec; holds: DueHold[] }> = [];
  for (const merchantId of merchantIds) {
    const holds = byMerchant.get(merchantId)!;
    const amount = holds.reduce((sum, h) => sum.plus(h.remaining), dec(0));
    released.push({ merchantId, amount, holds });
    const { repaid } = splitSettlement(amount, dec(0), balances.get(merchantId)!.usd_owed);
    entries.push({
      kind: 'reserve_release',
      memo: `${holds.length} hold(s)`,
      postings: transfer(
        merchantAccount(merchantId, 'usd_reserved'),
        merchantAccount(merchantId, 'usd_available'),
        amount,
      ),
    });
    if (!repaid.isZero()) {
      entries.push({
        kind: 'debt_repayment',
        postings: transfer(
          merchantAccount(merchantId, 'usd_available'),
          merchantAccount(merchantId, 'usd_owed'),
          repaid,
        ),
      });
    }
  }
  const posted = entries;
  const ids = await ledger.postAll(tx, posted);
  const releaseIdOf = new Map<string, string>();
  posted.forEach((entry, i) => {
    if (entry.kind === 'reserve_release') {
      releaseIdOf.set(entry.postings[0].account.merchantId!, ids[i]);
    }
  });
  await executeInTransaction(
    tx,
    `update reserve_holds h set released_at = ?, release_transaction_id = r.transaction_id
       from jsonb_to_recordset(?::jsonb) as r(deposit_id text, transaction_id text)
      where h.deposit_id = r.deposit_id`,
    [
      now,
      JSON.stringify(
        released.flatMap((r) =>
          r.holds.map((h) => ({
            deposit_id: h.deposit_id,
            transaction_id: releaseIdOf.get(r.merchantId)!,
          })),
        ),
      ),
    ],
  );
  for (const r of released) {
    await writeMerchantEvent(tx, {
      kind: 'balance.reserve_released',
      merchantId: r.merchantId,
      data: {
        merchant_id: r.merchantId,
        amount: r.amount.toFixed(6),
        deposit_ids: r.holds.map((h) => h.deposit_id),
      },
      createdAt: now,
    });
  }
  return due.length;
}
