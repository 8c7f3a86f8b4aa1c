import { invalidParameter } from './errors';
import { dec, isDecimalString, type Dec } from './money';

/** What happens to a deposit that breaks a payment rule. */
export type RuleAction = 'accept' | 'flag' | 'return';
export const RULE_ACTIONS: readonly RuleAction[] = ['accept', 'flag', 'return'];
export const NAME_CHECK_ACTIONS: readonly RuleAction[] = ['flag', 'return'];

/** An amount rule as the API shows it (`tolerance_ngn` a decimal string, 2 places). */
export interface AmountRule {
  tolerance_ngn: string;
  tolerance_bps: number;
  action: RuleAction;
}

export interface PayerNameCheck {
  enabled: boolean;
  action: 'flag' | 'return';
}

export interface PaymentRules {
  underpayment: AmountRule;
  overpayment: AmountRule;
  payer_name_check: PayerNameCheck;
}

/**
 * Defaults for a merchant that never set a rule: every amount is accepted and no name is
 * checked, which is what every merchant had before the rules existed.
 */
export const DEFAULT_AMOUNT_RULE: AmountRule = {
  tolerance_ngn: '0.00',
  tolerance_bps: 0,
  action: 'accept',
};
export const DEFAULT_NAME_CHECK: PayerNameCheck = { enabled: false, action: 'flag' };

/** 100 billion NGN, like a transfer's ceiling; bps up to 100 %. */
const MAX_TOLERANCE_NGN = dec('100000000000');
const MAX_BPS = 10_000;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Validates a PATCH of one amount rule: the fields named replace those of `current`. Unknown
 * fields are refused, so a typo does not silently keep the old value.
 */
export function parseAmountRule(field: string, raw: unknown, current: AmountRule): AmountRule {
  if (!isObject(raw)) throw invalidParameter(field, 'must be an object');
  for (const key of Object.keys(raw)) {
    if (!['tolerance_ngn', 'tolerance_bps', 'action'].includes(key)) {
      throw invalidParameter(`${field}.${key}`, 'is not a known field');
    }
  }
  const next = { ...current };
  if (raw.tolerance_ngn !== undefined) {
    const t = raw.tolerance_ngn;
    if (typeof t !== 'string' || !isDecimalString(t, 2) || dec(t).gt(MAX_TOLERANCE_NGN)) {
      throw invalidParameter(
        `${field}.tolerance_ngn`,
        'must be a decimal string >= 0, 2 places at most',
      );
    }
    next.tolerance_ngn = dec(t).toFixed(2);
  }
  if (raw.tolerance_bps !== undefined) {
    const b = raw.tolerance_bps;
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b > MAX_BPS) {
      throw invalidParameter(`${field}.tolerance_bps`, `must be an integer from 0 to ${MAX_BPS}`);
    }
    next.tolerance_bps = b;
  }
  if (raw.action !== undefined) {
    if (!RULE_ACTIONS.includes(raw.action as RuleAction)) {
      throw invalidParameter(`${field}.action`, 'must be accept, flag or return');
    }
    next.action = raw.action as RuleAction;
  }
  return next;
}

export function parseNameCheck(raw: unknown, current: PayerNameCheck): PayerNameCheck {
  const field = 'payer_name_check';
  if (!isObject(raw)) throw invalidParameter(field, 'must be an object');
  for (const key of Object.keys(raw)) {
    if (!['enabled', 'action'].includes(key)) {
      throw invalidParameter(`${field}.${key}`, 'is not a known field');
    }
  }
  const next = { ...current };
  if (raw.enabled !== undefined) {
    if (typeof raw.enabled !== 'boolean')
      throw invalidParameter(`${field}.enabled`, 'must be true or false');
    next.enabled = raw.enabled;
  }
  if (raw.action !== undefined) {
    if (!NAME_CHECK_ACTIONS.includes(raw.action as RuleAction)) {
      throw invalidParameter(`${field}.action`, 'must be flag or return');
    }
    next.action = raw.action as 'flag' | 'return';
  }
  return next;
}

/** A stored rule (jsonb, null when never set) as the effective rule. */
export function storedAmountRule(stored: unknown): AmountRule {
  return isObject(stored)
    ? { ...DEFAULT_AMOUNT_RULE, ...(stored as Partial<AmountRule>) }
    : DEFAULT_AMOUNT_RULE;
}

export function storedNameCheck(stored: unknown): PayerNameCheck {
  return isObject(stored)
    ? { ...DEFAULT_NAME_CHECK, ...(stored as Partial<PayerNameCheck>) }
    : DEFAULT_NAME_CHECK;
}

/**
 * The allowance around the expected amount: the LARGER of the fixed amount and the share
 * (expected x bps / 10,000), not their sum, so "N100 or 1 %" reads as a merchant means it.
 * Exact decimals, no rounding: the comparison is against the unrounded share.
 */
export function toleranceNgn(expected: Dec, rule: AmountRule): Dec {
  const share = expected.times(rule.tolerance_bps).dividedBy(10_000);
  const fixed = dec(rule.tolerance_ngn);
  return fixed.gt(share) ? fixed : share;
}

export type AmountVerdict = 'exact_or_within' | 'underpaid' | 'overpaid';

/** Within when |received - expected| <= tolerance of the side it falls on. */
export function amountVerdict(received: Dec, expected: Dec, rules: PaymentRules): AmountVerdict {
  if (received.lt(expected)) {
    const short = expected.minus(received);
    return short.gt(toleranceNgn(expected, rules.underpayment)) ? 'underpaid' : 'exact_or_within';
  }
  const over = received.minus(expected);
  return over.gt(toleranceNgn(expected, rules.overpayment)) ? 'overpaid' : 'exact_or_within';
}

/** The stored rules (jsonb columns, null when never set) as the effective rules. */
export function paymentRulesOf(stored: Record<string, unknown> | null | undefined): PaymentRules {
  return {
    underpayment: storedAmountRule(stored?.underpayment),
    overpayment: storedAmountRule(stored?.overpayment),
    payer_name_check: storedNameCheck(stored?.payer_name_check),
  };
}
