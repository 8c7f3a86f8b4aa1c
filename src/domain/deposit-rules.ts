import type { Dec } from './money';
import { limitReason, REASON } from './deposit-reasons';
import type { DepositStatus } from './deposit-state-machine';
import { amountVerdict, type PaymentRules } from './payment-rules';
import { payerNameMatches } from './payer-name';

/** What a new deposit starts as, and why when it is not PENDING_FX. */
export type FirstStatus =
  | { status: 'PENDING_FX' }
  | { status: 'FLAGGED'; flagReason: string; returnToPayer?: boolean }
  | { status: 'FAILED'; failureReason: string };

/** The reason a first status records (FLAGGED and FAILED have one). */
export function firstStatusReason(first: FirstStatus): string | undefined {
  if (first.status === 'FLAGGED') return first.flagReason;
  return first.status === 'FAILED' ? first.failureReason : undefined;
}

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
  /** The onramp's expected amount (`amount_ngn`), null when the merchant set none. */
  expectedNgn: Dec | null;
  /** The onramp's expected payer name, null when none. */
  expectedPayerName: string | null;
  /** The name the bank gave for the payer, null when unknown. */
  payerName: string | null;
  rules: PaymentRules;
}

export interface DepositLimits {
  perDepositUsd: Dec;
  merchantDailyUsd: Dec;
  systemDailyUsd: Dec;
}

/**
 * The spec's rules for a transfer landing in a virtual account, in this order: onramp
 * expiry (or deactivation), rate expiry, below minimum, second transfer to a THROWAWAY,
 * frozen merchant, per-deposit limit, then the merchant's payment rules (underpayment,
 * overpayment, payer name). The daily limits need the locked day totals and are decided by
 * `dailyLimitDecision` when this answers PENDING_FX.
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
  return decidePaymentRules(facts);
}

const broken = (action: string, flagReason: string): FirstStatus =>
  action === 'accept'
    ? { status: 'PENDING_FX' }
    : { status: 'FLAGGED', flagReason, ...(action === 'return' ? { returnToPayer: true } : {}) };

/**
 * The merchant's rules, for a transfer that passed every other one. Amounts are checked only
 * when the onramp has an expected amount; the name only when the check is on, the onramp has
 * an expected name and the bank gave one (an unknown name is not a mismatch). `accept` lets
 * the transfer through as before; `flag` and `return` flag it (`return` also asks for the
 * money to go back, which the deposits module starts in the same transaction).
 */
export function decidePaymentRules(facts: ArrivalFacts): FirstStatus {
  const { rules } = facts;
  if (facts.expectedNgn) {
    const verdict = amountVerdict(facts.amountNgn, facts.expectedNgn, rules);
    if (verdict === 'underpaid' && rules.underpayment.action !== 'accept') {
      return broken(rules.underpayment.action, REASON.underpaid);
    }
    if (verdict === 'overpaid' && rules.overpayment.action !== 'accept') {
      return broken(rules.overpayment.action, REASON.overpaid);
    }
  }
  const check = rules.payer_name_check;
  if (
    check.enabled &&
    facts.expectedPayerName &&
    facts.payerName &&
    !payerNameMatches(facts.expectedPayerName, facts.payerName)
  ) {
    return broken(check.action, REASON.payerNameMismatch);
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
