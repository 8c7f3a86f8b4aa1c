import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { activeTraceParent } from '../lib/trace-context';
import type { DepositView } from './deposit-view';

/** A deposit as ingestion writes it: what the API shows, and the internal columns. */
export interface NewDeposit extends DepositView {
  accountNumber: string;
  /** USD counted against the daily limits (the amount at the applied rate at receipt). */
  limitUsd: string;
  settlementMode: 'MERCHANT_BALANCE' | 'AUTO_WITHDRAW';
  senderName: string | null;
  senderAccount: string | null;
  senderBank: string | null;
  /** Africa/Lagos day of arrival: the day whose limits the deposit counts against. */
  lagosDay: string;
}

const COLUMNS = [
  'id',
  'onramp_id',
  'merchant_id',
  'payment_reference',
  'user_email',
  'account_number',
  'bank_reference',
  'amount_ngn',
  'rate_id',
  'amount_asset',
  'limit_usd',
  'asset',
  'chain',
  'settlement_mode',
  'status',
  'failure_reason',
  'flag_reason',
  'sender_name',
  'sender_account',
  'sender_bank',
  'lagos_day',
  'created_at',
  'updated_at',
  'trace_parent',
];

// The transaction columns (tx_hash, fx_executed_at, reversed_at, settled_at, fx_order_id)
// start null, their default. The status trigger writes the deposit's first event.
const INSERT_SQL = `insert into deposits (${COLUMNS.join(', ')})
  values (${COLUMNS.map(() => '?').join(', ')})
  on conflict (bank_reference) do nothing
  returning id`;

/**
 * Inserts the deposit; false when its bank reference is already taken: another notification
 * with the same reference committed first (the insert waits for one still in flight).
 */
export async function insertDeposit(tx: EntityManager, d: NewDeposit): Promise<boolean> {
  const inserted = await executeInTransaction(tx, INSERT_SQL, [
    d.id,
    d.onrampId,
    d.merchantId,
    d.paymentReference,
    d.userEmail,
    d.accountNumber,
    d.bankReference,
    d.amountNgn,
    d.rateId,
    d.amountAsset,
    d.limitUsd,
    d.asset,
    d.chain,
    d.settlementMode,
    d.status,
    d.failureReason,
    d.flagReason,
    d.senderName,
    d.senderAccount,
    d.senderBank,
    d.lagosDay,
    d.createdAt,
    d.updatedAt,
    // The request's trace, when tracing is on: the runner's spans for this deposit join it.
    activeTraceParent(),
  ]);
  return inserted.length > 0;
}
