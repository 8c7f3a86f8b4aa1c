import type { EntityManager } from '@mikro-orm/postgresql';
import { SettlementMode } from '../domain/onramp-kinds';
import { executeInTransaction } from '../db/locks';
import type { DepositStatus } from '../domain/deposit-state-machine';
import { newestValidRateIdSql, rateColumnSql } from '../rates/rate-sql';
import type { BatchDeposit } from './deposit-transitions';

/** A PENDING_FX deposit this run holds, with the order to place for it. */
export interface ClaimedDeposit {
  id: string;
  merchantId: string;
  onrampId: string;
  amountNgn: string;
  /** Null: no rate was valid to convert at (the deposit is FLAGGED, no order placed). */
  rateId: string | null;
  marketRate: string | null;
  inverseRate: string | null;
  /** The venue's idempotency key, recorded before the order is placed. */
  fxOrderId: string;
  /** The trace of the request that recorded it (tracing on), for the settlement's spans. */
  traceParent: string | null;
}

export interface ClaimRequest {
  /** This run's id: only the run holding the claim may apply its fills. */
  claim: string;
  now: Date;
  expiresAt: Date;
  limit: number;
  /** Only these deposits (settling one deposit on request); unset: the oldest pending. */
  ids?: string[];
}

/**
 * Claims up to `limit` PENDING_FX deposits no live run holds, in one statement (so in one
 * short transaction): rows locked by another claim are skipped, not waited for. Each records
 * its FX client order id (the deposit id unless an operator's retry set a new one) and the
 * rate it converts at: a PERMANENT onramp's deposit is pinned to the rate current now, so an
 * order placed again after a crash is the same order. The rate's figures come back with it.
 */
export async function claimPending(
  em: EntityManager,
  request: ClaimRequest,
): Promise<ClaimedDeposit[]> {
  const only = request.ids ? `and id in (${request.ids.map(() => '?').join(', ')})` : '';
  const rows = await em.getConnection().execute<
    Array<{
      id: string;
      merchant_id: string;
      onramp_id: string;
      amount_ngn: string;
      rate_id: string | null;
      market_rate: string | null;
      inverse_rate: string | null;
      fx_order_id: string;
      trace_parent: string | null;
    }>
  >(
    `with picked as (
       select id from deposits
        where status = 'PENDING_FX'
          and (settle_claim_expires_at is null or settle_claim_expires_at <= ?) ${only}
        order by updated_at
        limit ?
        for update skip locked)
     update deposits as d
        set settle_claim = ?, settle_claim_expires_at = ?,
            fx_order_id = coalesce(d.fx_order_id, d.id),
            rate_id = coalesce(d.rate_id, ${newestValidRateIdSql("coalesce(d.asset, 'USD')")})
       from picked
      where d.id = picked.id
     returning d.id, d.merchant_id, d.onramp_id, d.amount_ngn::text as amount_ngn, d.rate_id,
       d.fx_order_id, d.trace_parent,
       ${rateColumnSql('market_rate', 'd.rate_id')} as market_rate,
       ${rateColumnSql('inverse_rate', 'd.rate_id')} as inverse_rate`,
    [
      request.now,
      ...(request.ids ?? []),
      request.limit,
      request.claim,
      request.expiresAt,
      request.now,
    ],
  );
  return rows.map((r) => ({
    id: r.id,
    merchantId: r.merchant_id,
    onrampId: r.onramp_id,
    amountNgn: r.amount_ngn,
    rateId: r.rate_id,
    marketRate: r.market_rate,
    inverseRate: r.inverse_rate,
    fxOrderId: r.fx_order_id,
    traceParent: r.trace_parent,
  }));
}

/** A claimed deposit re-read under its row lock, as the apply step changes it. */
export interface HeldDeposit extends BatchDeposit {
  onrampId: string;
  settlementMode: SettlementMode;
  chain: string | null;
  asset: string | null;
  createdAt: Date;
}

/**
 * Locks the deposits of `ids` still PENDING_FX and still held by `claim`, in id order; the
 * others (settled meanwhile, reversed, claimed again after this run's claim expired) are left
 * out, so their fills are not applied.
 */
export async function lockHeld(
  tx: EntityManager,
  claim: string,
  ids: string[],
): Promise<HeldDeposit[]> {
  if (ids.length === 0) return [];
  const rows = await executeInTransaction<Record<string, string | Date | null>>(
    tx,
    `select ${HELD_DEPOSIT_COLUMNS}
       from deposits d
      where id in (${ids.map(() => '?').join(', ')}) and status = 'PENDING_FX' and settle_claim = ?
      order by id
        for update`,
    [...ids, claim],
  );
  return rows.map(heldDepositOf);
}

/** The columns `heldDepositOf` reads, of the deposits row aliased `d`. */
export const HELD_DEPOSIT_COLUMNS = `d.id, d.onramp_id, d.merchant_id, d.status,
  d.settlement_mode, d.chain, d.asset, d.amount_ngn::text as amount_ngn,
  d.limit_usd::text as limit_usd, d.amount_asset::text as amount_asset, d.rate_id,
  d.lagos_day::text as lagos_day, d.fx_executed_at, d.flag_reason, d.failure_reason,
  d.settled_at, d.updated_at, d.created_at`;

export function heldDepositOf(r: Record<string, string | Date | null>): HeldDeposit {
  const text = (value: string | Date | null) => (value === null ? null : String(value));
  const time = (value: string | Date | null) => (value === null ? null : new Date(value));
  return {
    id: String(r.id),
    onrampId: String(r.onramp_id),
    merchantId: String(r.merchant_id),
    status: r.status as DepositStatus,
    settlementMode: r.settlement_mode as SettlementMode,
    chain: text(r.chain),
    asset: text(r.asset),
    amountNgn: String(r.amount_ngn),
    limitUsd: String(r.limit_usd),
    amountAsset: text(r.amount_asset),
    rateId: text(r.rate_id),
    lagosDay: String(r.lagos_day),
    fxExecutedAt: time(r.fx_executed_at),
    flagReason: text(r.flag_reason),
    failureReason: text(r.failure_reason),
    settledAt: time(r.settled_at),
    updatedAt: time(r.updated_at)!,
    createdAt: time(r.created_at)!,
  };
}
