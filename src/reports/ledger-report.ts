import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context/request-context';
import { csvNumber, csvRecord } from '../domain/csv';
import { lagosDay } from '../domain/lagos-day';
import type { ReportRange } from '../domain/report-range';
import { exportMerchantPostings, type MerchantPosting } from '../ledger';
import { withdrawalsOfPayouts } from '../payouts';
import { reportMerchantOf, type ReportChunk } from './report-merchant';

/** The columns of `ledger.csv`, in order (docs/api.md, "Reconciliation exports"). */
export const LEDGER_REPORT_COLUMNS = [
  'posting_id',
  'posted_at',
  'lagos_date',
  'transaction_id',
  'kind',
  'account',
  'currency',
  'direction',
  'amount',
  'net',
  'deposit_id',
  'withdrawal_id',
  'memo',
] as const;

/**
 * `net` is the posting's effect on the merchant's balance: merchant accounts are liabilities
 * (credit-normal), so a CREDIT adds and a DEBIT takes away. The stored text (6 places), signed.
 */
function net(posting: MerchantPosting): string {
  return posting.direction === 'CREDIT' ? posting.amount : `-${posting.amount}`;
}

function postingRecord(p: MerchantPosting, withdrawals: Map<string, string>): string {
  return csvRecord([
    p.postingId,
    p.postedAt.toISOString(),
    lagosDay(p.postedAt),
    p.transactionId,
    p.kind,
    p.bucket,
    p.currency,
    p.direction,
    csvNumber(p.amount),
    csvNumber(net(p)),
    p.depositId,
    p.payoutId === null ? null : (withdrawals.get(p.payoutId) ?? null),
    p.memo,
  ]);
}

/**
 * `ledger.csv`: the header, then every posting on the merchant's USD accounts whose
 * transaction falls in the range, in posting order; one text chunk per database chunk.
 */
export async function* ledgerReport(
  em: EntityManager,
  ctx: RequestContext,
  range: ReportRange,
): AsyncGenerator<ReportChunk> {
  const merchantId = reportMerchantOf(ctx);
  yield { text: csvRecord(LEDGER_REPORT_COLUMNS), rows: 0 };
  for await (const chunk of exportMerchantPostings(em, merchantId, range)) {
    const payoutIds = [...new Set(chunk.flatMap((p) => (p.payoutId ? [p.payoutId] : [])))];
    const withdrawals = await withdrawalsOfPayouts(em, merchantId, payoutIds);
    yield { text: chunk.map((p) => postingRecord(p, withdrawals)).join(''), rows: chunk.length };
  }
}
