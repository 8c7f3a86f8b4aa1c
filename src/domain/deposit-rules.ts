import type { Dec } from './money';
import { limitReason, REASON } from './deposit-reasons';
import type { DepositStatus } from './deposit-state-machine';

/** What a new deposit starts as, and why when it is not PENDING_FX. */
export type FirstStatus =
  | { status: 'PENDING_FX' }
  | { status: 'FLAGGED'; flagReason: string }
  | { status: 'FAILED'; failureReason: string };

export interface ArrivalFacts {
  onrampType: 'THROWAWAY' | 'EPHEMERAL' | 'PERMANENT';
  /** The onramp's status at the transfer's arrival (EXPIRED from the TTL instant). */
  onrampStatus: 'ACTIVE' | 'EXPIRED' | 'COMPLETED' | 'DEACTIVATED';
  /** Deposits the onramp already has. */
  priorDeposits: number;
  /** Short-lived onramps: the locked rate had expired at arrival. */
  rateExpired: boolean;
  merchantFrozen: boolean;
  amountNgn: Dec;
  minDepositNgn: Dec;
  /** The amount in USD at the applied rate: what the limits count. */
  amountUsd: Dec;
}

export interface DepositLimits {
  perDepositUsd: Dec;
  merchantDailyUsd: Dec;
  systemDailyUsd: Dec;
}

/**
 * The spec's rules for a transfer landing in a virtual account, in this order: onramp
 * expiry (or deactivation), rate expiry, below minimum, second transfer to a THROWAWAY,
 * frozen merchant, per-deposit limit. The daily limits need the locked day totals and are
 * decided by `dailyLimitDecision` when this answers PENDING_FX.
 */
export function decideArrival(facts: ArrivalFacts, limits: DepositLimits): FirstStatus {
  if (facts.onrampStatus === 'EXPIRED') {
    return { status: 'FLAGGED', flagReason: REASON.afterOnrampExpiry };
  }
  if (facts.onrampStatus === 'DEACTIVATED') {
    return { status: 'FLAGGED', flagReason: REASON.afterDeactivation };
  }
  if (facts.rateExpired) return { status: 'FLAGGED', flagReason: REASON.afterRateExpiry };
  if (facts.amountNgn.lt(facts.minDepositNgn)) {
    return { status: 'FAILED', failureReason: REASON.belowMinimum };
  }
  if (
    facts.onrampType === 'THROWAWAY' &&
    (facts.priorDeposits > 0 || facts.onrampStatus === 'COMPLETED')
  ) {
    return { status: 'FLAGGED', flagReason: REASON.secondThrowawayTransfer };
  }
  if (facts.merchantFrozen) return { status: 'FLAGGED', flagReason: REASON.merchantFrozen };
  if (facts.amountUsd.gt(limits.perDepositUsd)) {
    return { status: 'FLAGGED', flagReason: limitReason.perDeposit(limits.perDepositUsd) };
  }
  return { status: 'PENDING_FX' };
}

/** Daily limits on the Africa/Lagos day's counted totals (read under their row locks). */
export function dailyLimitDecision(
  amountUsd: Dec,
  totals: { merchantUsd: Dec; systemUsd: Dec },
  limits: DepositLimits,
): FirstStatus {
  if (totals.merchantUsd.plus(amountUsd).gt(limits.merchantDailyUsd)) {
    return { status: 'FLAGGED', flagReason: limitReason.merchantDaily(limits.merchantDailyUsd) };
  }
  if (totals.systemUsd.plus(amountUsd).gt(limits.systemDailyUsd)) {
    return { status: 'FLAGGED', flagReason: limitReason.systemDaily(limits.systemDailyUsd) };
  }
  return { status: 'PENDING_FX' };
}

/**
 * Deposits counted against the daily limits (docs/api.md, "Deposits"): reached PENDING_FX or later and not
 * FAILED, FLAGGED or REVERSED.
 */
export function countsAgainstLimits(status: DepositStatus): boolean {
  return status === 'PENDING_FX' || status === 'PENDING_WITHDRAWAL' || status === 'SETTLED';
}
