import { invalidParameter } from './errors';
import { REASON } from './deposit-reasons';
import { LINK_LIFETIME } from './resolution-token';

/**
 * What a payer may choose on a resolution link (docs/api.md, "Payer resolution links"). Pure:
 * the service gathers the facts under the deposit's lock and asks here.
 */
export interface PayerResolutionSetting {
  /** Settling a flagged deposit at today's rate is the merchant's commercial decision. */
  allow_settle: boolean;
}

export const DEFAULT_PAYER_RESOLUTION: PayerResolutionSetting = { allow_settle: false };

/**
 * Flag reasons a payer's choice can fix: the amount, the name, the timing. Never a frozen
 * merchant, a limit, a risk rejection or an FX/chain failure: those are the operator's.
 */
export const PAYER_FIXABLE_REASONS: ReadonlySet<string> = new Set([
  REASON.underpaid,
  REASON.overpaid,
  REASON.payerNameMismatch,
  REASON.afterOnrampExpiry,
  REASON.afterRateExpiry,
  REASON.afterDeactivation,
  REASON.secondThrowawayTransfer,
]);

export interface PayerOptionFacts {
  status: string;
  flagReason: string | null;
  merchantActive: boolean;
  allowSettle: boolean;
  /** `planResolution` accepts 'settle' for the deposit. */
  settlePlannable: boolean;
  converted: boolean;
  reversed: boolean;
  senderAccountKnown: boolean;
}

export interface PayerOptions {
  settle: boolean;
  return: boolean;
}

export function payerOptions(facts: PayerOptionFacts): PayerOptions {
  // The payer proves himself with the account he paid from: unknown, he can choose nothing.
  if (facts.status !== 'FLAGGED' || !facts.senderAccountKnown) {
    return { settle: false, return: false };
  }
  return {
    settle:
      facts.allowSettle &&
      facts.merchantActive &&
      facts.flagReason !== null &&
      PAYER_FIXABLE_REASONS.has(facts.flagReason) &&
      facts.settlePlannable,
    // What the return service accepts: NGN never converted, to a known sender account.
    return: !facts.converted && !facts.reversed && facts.senderAccountKnown,
  };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A PATCH of `payer_resolution`, merged into the current setting. */
export function parsePayerResolution(
  raw: unknown,
  current: PayerResolutionSetting,
): PayerResolutionSetting {
  const field = 'payer_resolution';
  if (!isObject(raw)) throw invalidParameter(field, 'must be an object');
  for (const key of Object.keys(raw)) {
    if (key !== 'allow_settle') throw invalidParameter(`${field}.${key}`, 'is not a known field');
  }
  if (raw.allow_settle === undefined) return { ...current };
  if (typeof raw.allow_settle !== 'boolean') {
    throw invalidParameter(`${field}.allow_settle`, 'must be true or false');
  }
  return { allow_settle: raw.allow_settle };
}

/** The stored setting (jsonb, null when never set) as the effective one. */
export function storedPayerResolution(stored: unknown): PayerResolutionSetting {
  return isObject(stored) && typeof stored.allow_settle === 'boolean'
    ? { allow_settle: stored.allow_settle }
    : DEFAULT_PAYER_RESOLUTION;
}

/** `expires_in_seconds` of a link request: a whole number within the bounds, or the default. */
export function linkLifetimeSeconds(raw: unknown): number {
  if (raw === undefined || raw === null) return LINK_LIFETIME.defaultSeconds;
  const { minSeconds, maxSeconds } = LINK_LIFETIME;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < minSeconds || raw > maxSeconds) {
    throw invalidParameter(
      'expires_in_seconds',
      `must be a whole number of seconds from ${minSeconds} to ${maxSeconds}`,
    );
  }
  return raw;
}
