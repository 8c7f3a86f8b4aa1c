import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context/request-context';
import { csvNumber, csvRecord } from '../domain/csv';
import { lagosDay } from '../domain/lagos-day';
import type { ReportRange } from '../domain/report-range';
import { exportDeposits, publicDeposit, type DepositView } from '../deposits';
import { reportMerchantOf, type ReportChunk } from './report-merchant';

/** The columns of `deposits.csv`, in order (docs/api.md, "Reconciliation exports"). */
export const DEPOSIT_REPORT_COLUMNS = [
  'deposit_id',
  'created_at',
  'lagos_date',
  'status',
  'amount_ngn',
  'amount_asset',
  'asset',
  'chain',
  'rate_id',
  'onramp_id',
  'payment_reference',
  'bank_reference',
  'user_email',
  'payer_account_name',
  'payer_account_number_last4',
  'payer_bank_code',
  'tx_hash',
  'flag_reason',
  'failure_reason',
  'settled_at',
  'updated_at',
] as const;

function depositRecord(view: DepositView): string {
  const d = publicDeposit(view);
  return csvRecord([
    d.deposit_id,
    d.created_at,
    lagosDay(view.createdAt),
    d.status,
    csvNumber(d.amount_ngn),
    csvNumber(d.amount_asset),
    d.asset,
    d.chain,
    d.rate_id,
    d.onramp_id,
    d.payment_reference,
    d.bank_reference,
    d.user_email,
    d.payer.account_name,
    d.payer.account_number_last4,
    d.payer.bank_code,
    d.tx_hash,
    d.flag_reason,
    d.failure_reason,
    d.settled_at,
    d.updated_at,
  ]);
}

/**
 * `deposits.csv`: the header, then the merchant's deposits created in the range, oldest first,
 * one text chunk per database chunk (the caller streams them; nothing else is held), each
 * with its number of records.
 */
export async function* depositReport(
  em: EntityManager,
  ctx: RequestContext,
  range: ReportRange,
): AsyncGenerator<ReportChunk> {
  reportMerchantOf(ctx);
  yield { text: csvRecord(DEPOSIT_REPORT_COLUMNS), rows: 0 };
  for await (const chunk of exportDeposits(em, ctx, range)) {
    yield { text: chunk.map(depositRecord).join(''), rows: chunk.length };
  }
}
