import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { merchantPaymentRulesSql, merchantStatusSql } from '../merchants/merchant-sql';
import { ONRAMP_HOLDING_NUMBER_SQL } from '../onramps/onramp-sql';
import { pricingRateLateralSql } from '../rates/rate-sql';
import { dec, type Dec } from '../domain/money';
import { paymentRulesOf, type PaymentRules } from '../domain/payment-rules';
import { storedPendingChanges, withDueChanges } from '../domain/settings-widening';
import { SYSTEM_SCOPE, type DailyTotals } from './daily-volume';
import { depositViewFromSnapshot, type DepositView } from './deposit-view';

/** The onramp that held the account number when the transfer arrived, row-locked. */
export interface ArrivingOnramp {
  id: string;
  merchantId: string;
  type: 'THROWAWAY' | 'EPHEMERAL' | 'PERMANENT';
  status: 'ACTIVE' | 'EXPIRED' | 'COMPLETED' | 'DEACTIVATED';
  rateId: string | null;
  paymentReference: string;
  userEmail: string;
  settlementMode: 'MERCHANT_BALANCE' | 'AUTO_WITHDRAW';
  settlementAsset: string | null;
  settlementChain: string | null;
  expiresAt: Date | null;
  /** The expected amount (NGN, text), null when the merchant set none. */
  amountNgn: string | null;
  payerName: string | null;
}

/** The rate a deposit is priced at for its limits. */
export interface PricingRate {
  id: string;
  to: string;
  inverseRate: string;
  minDepositNgn: string;
  expiresAt: Date;
}

/** Everything ingestion decides on, read in one statement. */
export interface ArrivalRead {
  /** A deposit already made with this bank reference (any account, any merchant). */
  known: DepositView | null;
  /** The reference was already recorded as an unmatched transfer. */
  knownUnmatched: boolean;
  onramp: ArrivingOnramp | null;
  merchantFrozen: boolean;
  /** The merchant's payment rules, defaults filled in. */
  paymentRules: PaymentRules;
  /** THROWAWAY onramps only (the only rule that needs it); 0 for the others. */
  priorDeposits: number;
  rate: PricingRate | null;
  /** The day's totals read without a lock: a guess, confirmed under the lock before commit. */
  totals: DailyTotals;
}

/** A deposit row as `depositViewFromSnapshot` reads it (amounts as text, nothing internal). */
const DEPOSIT_VIEW_JSON = `jsonb_build_object(
  'id', d.id, 'onramp_id', d.onramp_id, 'merchant_id', d.merchant_id,
  'payment_reference', d.payment_reference, 'user_email', d.user_email,
  'amount_ngn', d.amount_ngn::text, 'bank_reference', d.bank_reference,
  'rate_id', d.rate_id, 'amount_asset', d.amount_asset::text, 'asset', d.asset,
  'chain', d.chain, 'tx_hash', d.tx_hash, 'status', d.status,
  'failure_reason', d.failure_reason, 'flag_reason', d.flag_reason,
  'sender_name', d.sender_name, 'sender_account_last4', d.sender_account_last4,
  'sender_bank', d.sender_bank,
  'created_at', d.created_at, 'settled_at', d.settled_at, 'updated_at', d.updated_at)`;

/** What a PERMANENT onramp's deposits convert to: its settlement asset on-chain, else USD. */
const CONVERTS_TO =
  "(case when t.settlement_mode = 'AUTO_WITHDRAW' then t.settlement_asset else 'USD' end)";

/**
 * One statement: the assignment that held the number at `at`, its onramp locked FOR UPDATE
 * (a materialized CTE, so the lock is taken whatever the outer joins find), and beside it the
 * merchant's status, the pricing rate, a deposit or unmatched transfer with the reference, and
 * the day's totals. The rate is the onramp's locked one, or for a PERMANENT onramp the newest
 * valid for what it converts to, else the newest at all. The onramps, merchants and rates
 * parts are those modules' fragments, composed here so ingestion stays one round trip.
 *
 * The statement reads with the snapshot it started with, also when it waited for the onramp
 * lock: a concurrent transfer with the same reference can be missed here. The deposit insert
 * (`on conflict (bank_reference) do nothing`) catches that case; a THROWAWAY's second transfer
 * sees the onramp COMPLETED, because the locked row is re-read at its newest version.
 */
const ARRIVAL_SQL = `
with target as materialized (${ONRAMP_HOLDING_NUMBER_SQL})
select
  (select ${DEPOSIT_VIEW_JSON}
     from deposits d where d.bank_reference = ?) as known,
  exists (select 1 from unmatched_transfers u where u.bank_reference = ?) as known_unmatched,
  t.id, t.merchant_id, t.type, t.status, t.rate_id, t.payment_reference, t.user_email,
  t.settlement_mode, t.settlement_asset, t.settlement_chain, t.expires_at,
  t.amount_ngn, t.payer_name,
  ${merchantStatusSql('t.merchant_id')} as merchant_status,
  ${merchantPaymentRulesSql('t.merchant_id')} as payment_rules,
  case when t.type = 'THROWAWAY'
       then (select count(*)::int from deposits d where d.onramp_id = t.id) else 0 end
    as prior_deposits,
  r.pricing_rate_id, r.to_currency, r.inverse_rate, r.min_deposit_ngn, r.rate_expires_at,
  (select v.usd::text from deposit_daily_volume v where v.scope = t.merchant_id and v.day = ?::date)
    as merchant_usd,
  (select v.usd::text from deposit_daily_volume v where v.scope = ? and v.day = ?::date)
    as system_usd
from (select 1) as one
left join target t on true
left join lateral ${pricingRateLateralSql('t.rate_id', CONVERTS_TO)} r on true`;

interface ArrivalRow {
  known: Record<string, unknown> | null;
  known_unmatched: boolean;
  id: string | null;
  merchant_id: string;
  type: ArrivingOnramp['type'];
  status: ArrivingOnramp['status'];
  rate_id: string | null;
  payment_reference: string;
  user_email: string;
  settlement_mode: ArrivingOnramp['settlementMode'];
  settlement_asset: string | null;
  settlement_chain: string | null;
  expires_at: string | Date | null;
  amount_ngn: string | null;
  payer_name: string | null;
  merchant_status: string | null;
  payment_rules: Record<string, unknown> | null;
  prior_deposits: number;
  pricing_rate_id: string | null;
  to_currency: string;
  inverse_rate: string;
  min_deposit_ngn: string;
  rate_expires_at: string | Date;
  merchant_usd: string | null;
  system_usd: string | null;
}

export async function readArrival(
  tx: EntityManager,
  transfer: { accountNumber: string; bankReference: string },
  at: Date,
  day: string,
): Promise<ArrivalRead> {
  const [row] = await executeInTransaction<ArrivalRow>(tx, ARRIVAL_SQL, [
    transfer.accountNumber,
    at,
    transfer.bankReference,
    transfer.bankReference,
    day,
    SYSTEM_SCOPE,
    day,
    at,
  ]);
  const platform = tx.getPlatform();
  const date = (value: string | Date): Date =>
    value instanceof Date ? value : (platform.parseDate(value) as Date);
  const usd = (value: string | null): Dec => dec(value ?? '0');
  return {
    known: row.known ? depositViewFromSnapshot(row.known) : null,
    knownUnmatched: row.known_unmatched,
    onramp: row.id
      ? {
          id: row.id,
          merchantId: row.merchant_id,
          type: row.type,
          status: row.status,
          rateId: row.rate_id,
          paymentReference: row.payment_reference,
          userEmail: row.user_email,
          settlementMode: row.settlement_mode,
          settlementAsset: row.settlement_asset,
          settlementChain: row.settlement_chain,
          expiresAt: row.expires_at === null ? null : date(row.expires_at),
          amountNgn: row.amount_ngn,
          payerName: row.payer_name,
        }
      : null,
    merchantFrozen: row.merchant_status === 'FROZEN',
    // Pending widenings count only once due at the arrival (issue 32).
    paymentRules: withDueChanges(
      paymentRulesOf(row.payment_rules),
      storedPendingChanges(row.payment_rules?.pending_settings),
      at,
    ),
    priorDeposits: row.prior_deposits ?? 0,
    rate: row.pricing_rate_id
      ? {
          id: row.pricing_rate_id,
          to: row.to_currency,
          inverseRate: row.inverse_rate,
          minDepositNgn: row.min_deposit_ngn,
          expiresAt: date(row.rate_expires_at),
        }
      : null,
    totals: { merchantUsd: usd(row.merchant_usd), systemUsd: usd(row.system_usd) },
  };
}

/**
 * The deposit with this bank reference, read afresh (a new statement sees what committed
 * since the arrival read): the winner of a race on the reference.
 */
export async function readDepositByReference(
  tx: EntityManager,
  bankReference: string,
): Promise<DepositView | null> {
  const [row] = await executeInTransaction<{ known: Record<string, unknown> }>(
    tx,
    `select ${DEPOSIT_VIEW_JSON} as known from deposits d where d.bank_reference = ?`,
    [bankReference],
  );
  return row ? depositViewFromSnapshot(row.known) : null;
}
