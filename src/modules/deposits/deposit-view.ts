import type { DepositStatus } from './deposit-state-machine';
import { isDepositStatus } from './deposit-state-machine';
import { ASSET_DECIMALS, dec, NGN_DECIMALS, toFixedDown } from '../../domain/money';
import type { MerchantBalance } from '../ledger/ledger.service';

/**
 * What the API shows of a deposit, whichever source it comes from: a `Deposit` entity fits
 * this interface as is, and an outbox event's row snapshot converts to it
 * (`depositViewFromSnapshot`). Internal columns (limits, Lagos day, sender details, settlement
 * mode, account number, FX and reversal times) are not part of it, so they cannot leak.
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
  createdAt: Date;
  settledAt: Date | null;
  updatedAt: Date;
}

/** Amounts are decimal strings: NGN with 2 places, asset units with 6 (rounded down). */
export const ngnAmount = (value: string): string => toFixedDown(dec(value), NGN_DECIMALS);
export const assetAmount = (value: string | null): string | null =>
  value === null ? null : toFixedDown(dec(value), ASSET_DECIMALS);

/** The REST Deposit object (snake_case): the spec's table, nothing internal. */
export function presentDeposit(d: DepositView) {
  return {
    deposit_id: d.id,
    onramp_id: d.onrampId,
    merchant_id: d.merchantId,
    payment_reference: d.paymentReference,
    user_email: d.userEmail,
    amount_ngn: ngnAmount(d.amountNgn),
    bank_reference: d.bankReference,
    rate_id: d.rateId,
    amount_asset: assetAmount(d.amountAsset),
    asset: d.asset,
    chain: d.chain,
    tx_hash: d.txHash,
    status: d.status,
    failure_reason: d.failureReason,
    flag_reason: d.flagReason,
    created_at: d.createdAt.toISOString(),
    settled_at: d.settledAt?.toISOString() ?? null,
    updated_at: d.updatedAt.toISOString(),
  };
}

export type DepositBody = ReturnType<typeof presentDeposit>;

function text(snapshot: Record<string, unknown>, key: string): string {
  const value = snapshot[key];
  if (typeof value !== 'string') throw new Error(`deposit snapshot: ${key} is not a string`);
  return value;
}

function textOrNull(snapshot: Record<string, unknown>, key: string): string | null {
  const value = snapshot[key];
  if (value === null || value === undefined) return null;
  if (typeof value !== 'string') throw new Error(`deposit snapshot: ${key} is not a string`);
  return value;
}

function time(snapshot: Record<string, unknown>, key: string): Date {
  const at = new Date(text(snapshot, key));
  if (Number.isNaN(at.getTime())) throw new Error(`deposit snapshot: ${key} is not a timestamp`);
  return at;
}

function timeOrNull(snapshot: Record<string, unknown>, key: string): Date | null {
  return textOrNull(snapshot, key) === null ? null : time(snapshot, key);
}

/**
 * The deposit row as the outbox trigger stored it in `events.snapshot` (`to_jsonb` of the
 * row: snake_case columns, `id` is the deposit id, amounts as text, timestamps like
 * "2026-07-01T12:00:00.123+00:00"). Throws on a malformed snapshot: that is a bug, not input.
 */
export function depositViewFromSnapshot(snapshot: Record<string, unknown>): DepositView {
  const status = text(snapshot, 'status');
  if (!isDepositStatus(status)) throw new Error(`deposit snapshot: unknown status ${status}`);
  return {
    id: text(snapshot, 'id'),
    onrampId: text(snapshot, 'onramp_id'),
    merchantId: text(snapshot, 'merchant_id'),
    paymentReference: text(snapshot, 'payment_reference'),
    userEmail: text(snapshot, 'user_email'),
    amountNgn: text(snapshot, 'amount_ngn'),
    bankReference: text(snapshot, 'bank_reference'),
    rateId: textOrNull(snapshot, 'rate_id'),
    amountAsset: textOrNull(snapshot, 'amount_asset'),
    asset: textOrNull(snapshot, 'asset'),
    chain: textOrNull(snapshot, 'chain'),
    txHash: textOrNull(snapshot, 'tx_hash'),
    status,
    failureReason: textOrNull(snapshot, 'failure_reason'),
    flagReason: textOrNull(snapshot, 'flag_reason'),
    createdAt: time(snapshot, 'created_at'),
    settledAt: timeOrNull(snapshot, 'settled_at'),
    updatedAt: time(snapshot, 'updated_at'),
  };
}

/** The spec's Merchant balance object; amounts are decimal strings (6 places). */
export function presentBalance(b: MerchantBalance) {
  return {
    merchant_id: b.merchantId,
    balances: {
      usd_available: b.usdAvailable,
      usd_pending_withdrawal: b.usdPendingWithdrawal,
    },
    updated_at: b.updatedAt.toISOString(),
  };
}
