import type { DepositStatus } from '../domain/deposit-state-machine';
import { isDepositStatus } from '../domain/deposit-state-machine';

/**
 * What the API shows of a deposit, whichever source it comes from: a `Deposit` entity fits
 * this interface as is, and a row read with `DEPOSIT_VIEW_COLUMNS` or an outbox event's row
 * snapshot converts to it (`depositViewFromRow`). Internal columns (limits, Lagos day, sender
 * details, settlement mode, account number, FX and reversal times) are not part of it, so they
 * cannot leak.
 */
export interface DepositView {
  id: string;
  onrampId: string;
  merchantId: string;
  paymentReference: string;
  userEmail: string;
  amountNgn: string;
  bankReference: string;
  rateId: string | null;
  amountAsset: string | null;
  asset: string | null;
  chain: string | null;
  txHash: string | null;
  status: DepositStatus;
  failureReason: string | null;
  flagReason: string | null;
  /** The payer as the bank named it; the account's last four digits only, never the number. */
  senderName: string | null;
  senderAccountLast4: string | null;
  senderBank: string | null;
  createdAt: Date;
  settledAt: Date | null;
  updatedAt: Date;
}

/**
 * The one list of `deposits` columns the view is made of. SQL reads select exactly these, and
 * the outbox snapshot (`to_jsonb` of the row) carries them under the same names, so both go
 * through the one mapping below; a column missing here does not compile there.
 */
export const DEPOSIT_VIEW_COLUMNS = [
  'id',
  'onramp_id',
  'merchant_id',
  'payment_reference',
  'user_email',
  'amount_ngn',
  'bank_reference',
  'rate_id',
  'amount_asset',
  'asset',
  'chain',
  'tx_hash',
  'status',
  'failure_reason',
  'flag_reason',
  'sender_name',
  'sender_account_last4',
  'sender_bank',
  'created_at',
  'settled_at',
  'updated_at',
] as const;

export type DepositViewRow = { readonly [C in (typeof DEPOSIT_VIEW_COLUMNS)[number]]: unknown };

/** The select list for a query aliasing `deposits` as `alias`. */
export function depositViewSelect(alias: string): string {
  return DEPOSIT_VIEW_COLUMNS.map((c) => `"${alias}"."${c}"`).join(', ');
}

function text(row: DepositViewRow, key: keyof DepositViewRow): string {
  const value = row[key];
  if (typeof value !== 'string') throw new Error(`deposit row: ${key} is not a string`);
  return value;
}

function textOrNull(row: DepositViewRow, key: keyof DepositViewRow): string | null {
  const value = row[key];
  if (value === null || value === undefined) return null;
  return text(row, key);
}

/**
 * Timestamps arrive as text from both sources ("2026-07-01 12:00:00.123+00" from a query,
 * "2026-07-01T12:00:00.123+00:00" from a snapshot), or as a Date from a driver that parses.
 */
function time(row: DepositViewRow, key: keyof DepositViewRow): Date {
  const value = row[key];
  const at = value instanceof Date ? value : new Date(text(row, key));
  if (Number.isNaN(at.getTime())) throw new Error(`deposit row: ${key} is not a timestamp`);
  return at;
}

function timeOrNull(row: DepositViewRow, key: keyof DepositViewRow): Date | null {
  const value = row[key];
  return value === null || value === undefined ? null : time(row, key);
}

/**
 * A row of `DEPOSIT_VIEW_COLUMNS` (numerics as text, as PostgreSQL sends them) or the outbox
 * snapshot, as the view. Throws on a malformed row: that is a bug, not input.
 */
export function depositViewFromRow(row: DepositViewRow): DepositView {
  const status = text(row, 'status');
  if (!isDepositStatus(status)) throw new Error(`deposit row: unknown status ${status}`);
  return {
    id: text(row, 'id'),
    onrampId: text(row, 'onramp_id'),
    merchantId: text(row, 'merchant_id'),
    paymentReference: text(row, 'payment_reference'),
    userEmail: text(row, 'user_email'),
    amountNgn: text(row, 'amount_ngn'),
    bankReference: text(row, 'bank_reference'),
    rateId: textOrNull(row, 'rate_id'),
    amountAsset: textOrNull(row, 'amount_asset'),
    asset: textOrNull(row, 'asset'),
    chain: textOrNull(row, 'chain'),
    txHash: textOrNull(row, 'tx_hash'),
    status,
    failureReason: textOrNull(row, 'failure_reason'),
    flagReason: textOrNull(row, 'flag_reason'),
    senderName: textOrNull(row, 'sender_name'),
    senderAccountLast4: textOrNull(row, 'sender_account_last4'),
    senderBank: textOrNull(row, 'sender_bank'),
    createdAt: time(row, 'created_at'),
    settledAt: timeOrNull(row, 'settled_at'),
    updatedAt: time(row, 'updated_at'),
  };
}

/**
 * The deposit row as the outbox stored it in `events.snapshot` (snake_case columns, `id` is
 * the deposit id, amounts as text).
 */
export function depositViewFromSnapshot(snapshot: Record<string, unknown>): DepositView {
  return depositViewFromRow(snapshot as DepositViewRow);
}
