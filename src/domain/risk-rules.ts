import { REASON } from './deposit-reasons';

/**
 * Risk review before every payout, as pure rules over what the payout is. Each rule answers
 * whether it passed and why; the payout is approved only if all pass. The decision and the
 * rules' answers are stored for operators and never exposed through the API.
 */
export interface PayoutForReview {
  merchantId: string;
  chain: string;
  asset: string;
  toAddress: string;
  amount: string;
}

export interface RiskContext {
  /** Lower-case addresses that must never receive funds. */
  blocklist: ReadonlySet<string>;
  /** Sandbox: the merchant asked for every payout to be rejected. */
  sandboxRejectAll: boolean;
  /** Lower-case addresses on the sanctions list in force (absent: not screened). */
  sanctioned?: ReadonlySet<string>;
}

export interface RuleResult {
  rule: string;
  passed: boolean;
  detail?: string;
}

export interface RiskDecision {
  approved: boolean;
  rules: RuleResult[];
  /** The deposit's flag reason when it is not 'Rejected by risk review' (sanctions). */
  flagReason?: string;
}

type Rule = (payout: PayoutForReview, context: RiskContext) => RuleResult;

const RULES: Rule[] = [
  (payout, context) => {
    const listed = context.sanctioned?.has(payout.toAddress.toLowerCase()) ?? false;
    return {
      rule: 'destination_not_sanctioned',
      passed: !listed,
      ...(listed ? { detail: `${payout.toAddress} is on the sanctions list in force` } : {}),
    };
  },
  (payout, context) => {
    const listed = context.blocklist.has(payout.toAddress.toLowerCase());
    return {
      rule: 'destination_not_blocklisted',
      passed: !listed,
      ...(listed ? { detail: `${payout.toAddress} is on the blocklist` } : {}),
    };
  },
  (_payout, context) => ({
    rule: 'sandbox_scenario',
    passed: !context.sandboxRejectAll,
    ...(context.sandboxRejectAll ? { detail: 'sandbox scenario riskReject is set' } : {}),
  }),
];

export function reviewPayout(payout: PayoutForReview, context: RiskContext): RiskDecision {
  const rules = RULES.map((rule) => rule(payout, context));
  const sanctioned = rules.some((r) => r.rule === 'destination_not_sanctioned' && !r.passed);
  return {
    approved: rules.every((r) => r.passed),
    rules,
    ...(sanctioned ? { flagReason: REASON.sanctionsScreening } : {}),
  };
}

/**
 * Parses a blocklist file: one address per line; blank lines and `#` comments ignored. A line
 * that is not an address is an error naming its line, so a typo cannot silently let funds out.
 */
export function parseBlocklist(text: string): Set<string> {
  const addresses = new Set<string>();
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.replace(/#.*$/, '').trim();
    if (line === '') return;
    if (!/^0x[0-9a-fA-F]{40}$/.test(line)) {
      throw new Error(`blocklist line ${index + 1}: "${line}" is not an address`);
    }
    addresses.add(line.toLowerCase());
  });
  return addresses;
}
