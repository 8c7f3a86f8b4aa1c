import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReportRange } from '../domain/report-range';
import { merchantAccount, type MerchantBucket } from '../domain/ledger';

/** One posting on a merchant's account, with its transaction: a line of `ledger.csv`. */
export interface MerchantPosting {
  postingId: string;
  postedAt: Date;
  transactionId: string;
  kind: string;
  bucket: MerchantBucket;
  currency: string;
  direction: 'DEBIT' | 'CREDIT';
  /** Exact decimal text, as stored. */
  amount: string;
  depositId: string | null;
  payoutId: string | null;
  memo: string | null;
}

interface PostingRow {
  id: string;
  created_at: Date | string;
  transaction_id: string;
  kind: string;
  account_id: string;
  currency: string;
  direction: 'DEBIT' | 'CREDIT';
  amount: string;
  deposit_id: string | null;
  payout_id: string | null;
  memo: string | null;
}

/** Postings read per statement. */
export const EXPORT_CHUNK_ROWS_LEDGER = 1000;

const BUCKETS: readonly MerchantBucket[] = ['usd_available', 'usd_pending_withdrawal'];

/**
 * A merchant's postings (its `usd_available` and `usd_pending_withdrawal` accounts) whose
 * transaction was written within the range, in posting order, in chunks. Postings are
 * append-only and numbered as written, so the keyset is the posting id alone, on
 * `ledger_postings_account_id_idx` (account, id): each chunk is one query of two ordered index
 * scans, and no connection stays open between chunks. Every posting of the accounts after
 * `from`'s first is read once (a posting's time is its transaction's, which no index orders). Summing a period's `net` gives the change of each
 * balance over it; over all time, the balance itself.
 */
export async function* exportMerchantPostings(
  em: EntityManager,
  merchantId: string,
  range: ReportRange,
  chunkRows = EXPORT_CHUNK_ROWS_LEDGER,
): AsyncGenerator<MerchantPosting[]> {
  const accounts = new Map(BUCKETS.map((b) => [merchantAccount(merchantId, b).id, b]));
  let after = '0';
  for (;;) {
    // The next postings of the two accounts by id, the cheapest read there is (one ordered
    // index scan per account, stopping at the limit), and only then their transactions: a
    // date filter inside the scan would let the planner join every posting the account has
    // before sorting. Postings outside the range are skipped here, once each.
    const branch = `(select p.id, p.transaction_id, p.account_id, p.currency, p.direction, p.amount
         from ledger_postings p where p.account_id = ? and p.id > ?::bigint
        order by p.id limit ${Number(chunkRows)})`;
    const rows = await em.execute<Array<PostingRow & { in_range: boolean }>>(
      `select u.id::text as id, t.created_at, u.transaction_id, t.kind, u.account_id,
              u.currency, u.direction, u.amount::text as amount, t.deposit_id, t.payout_id,
              t.memo, (t.created_at >= ? and t.created_at < ?) as in_range
         from (select * from (${branch} union all ${branch}) b
                order by b.id limit ${Number(chunkRows)}) u
         join ledger_transactions t on t.id = u.transaction_id
        order by u.id`,
      [range.from, range.before, ...[...accounts.keys()].flatMap((account) => [account, after])],
    );
    if (rows.length === 0) return;
    const inRange = rows.filter((r) => r.in_range);
    if (inRange.length > 0) {
      yield inRange.map((r) => ({
        postingId: r.id,
        postedAt: r.created_at instanceof Date ? r.created_at : new Date(r.created_at),
        transactionId: r.transaction_id,
        kind: r.kind,
        bucket: accounts.get(r.account_id)!,
        currency: r.currency,
        direction: r.direction,
        amount: r.amount,
        depositId: r.deposit_id,
        payoutId: r.payout_id,
        memo: r.memo,
      }));
    }
    if (rows.length < chunkRows) return;
    after = rows[rows.length - 1].id;
  }
}
