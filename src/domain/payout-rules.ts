import { ASSET_DECIMALS, Dec, dec } from './money';

/**
 * `amount` (a decimal string with at most 6 places) in the token's base units, exactly. A
 * seventh decimal would be money we cannot send, so it is refused rather than rounded.
 */
export function toBaseUnits(amount: string): bigint {
  const value = dec(amount);
  const scaled = value.times(dec(10).pow(ASSET_DECIMALS));
  if (!scaled.isInteger() || scaled.isNeg()) {
    throw new RangeError(`${amount} is not a whole number of base units`);
  }
  return BigInt(scaled.toFixed(0));
}

export function fromBaseUnits(units: bigint): string {
  return dec(units.toString()).dividedBy(dec(10).pow(ASSET_DECIMALS)).toFixed(ASSET_DECIMALS);
}

export interface Fees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

/**
 * Fees for replacing a stuck transaction at the same nonce: nodes accept a replacement only
 * when both fees rise by at least 10%; we take 25% over the old ones, or the network's
 * current fees when those are higher still.
 */
export function bumpedFees(previous: Fees, current: Fees): Fees {
  const bump = (old: bigint) => (old * 125n) / 100n + 1n;
  const max = (a: bigint, b: bigint) => (a > b ? a : b);
  const priority = max(bump(previous.maxPriorityFeePerGas), current.maxPriorityFeePerGas);
  return {
    maxPriorityFeePerGas: priority,
    maxFeePerGas: max(max(bump(previous.maxFeePerGas), current.maxFeePerGas), priority),
  };
}

/** Seconds a payout has waited for its chain: past the maximum, its deposit is FLAGGED. */
export function outageOutlasted(waitingSince: Date, now: Date, maxSeconds: number): boolean {
  return now.getTime() - waitingSince.getTime() >= maxSeconds * 1000;
}

export { Dec };
