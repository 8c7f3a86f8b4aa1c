import { dec, Dec, ASSET_DECIMALS } from './money';
import { invalidParameter } from './errors';

/**
 * Losses and reserves (docs/api.md, "Losses, reserves and sanctions"): the pure rules. Facts
 * in, amounts out; the ledger module turns them into postings.
 */

export type ReversalLiability = 'operator' | 'merchant';
export const REVERSAL_LIABILITIES: readonly ReversalLiability[] = ['operator', 'merchant'];

export interface ReserveTerms {
  /** Share of each balance settlement held, in basis points (0-10,000). */
  percentBps: number;
  /** Days (of `RESERVE_DAY_SECONDS`) a hold waits, counted from its settlement (0-365). */
  holdDays: number;
}

export const MAX_RESERVE_BPS = 10_000;
export const MAX_HOLD_DAYS = 365;

export function parseLiability(value: unknown): ReversalLiability {
  if (value === 'operator' || value === 'merchant') return value;
  throw invalidParameter('liability', 'must be merchant or operator');
}

/**
 * An integer in [0, max], given as a number or as decimal digits (the command line's text):
 * anything else (a sign, a fraction, an exponent, letters) is refused, never rounded.
 */
function boundedInt(field: string, value: unknown, max: number): number {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string' || !/^[0-9]{1,6}$/.test(text)) {
    throw invalidParameter(field, `must be a whole number from 0 to ${max}`);
  }
  const n = Number(text);
  if (n > max) throw invalidParameter(field, `must be a whole number from 0 to ${max}`);
  return n;
}

export function parseReserveTerms(percentBps: unknown, holdDays: unknown): ReserveTerms {
  return {
    percentBps: boundedInt('percent_bps', percentBps, MAX_RESERVE_BPS),
    holdDays: boundedInt('hold_days', holdDays, MAX_HOLD_DAYS),
  };
}

/** The reserve share of a settlement: `amount x bps / 10,000`, rounded down to 6 places. */
export function holdFor(amountAsset: Dec, terms: ReserveTerms | null): Dec {
  if (!terms || terms.percentBps === 0) return dec(0);
  return amountAsset
    .times(terms.percentBps)
    .dividedBy(MAX_RESERVE_BPS)
    .toDecimalPlaces(ASSET_DECIMALS, Dec.ROUND_DOWN);
}

/** When a hold made at `heldAt` is due for release. */
export function releaseAt(heldAt: Date, terms: ReserveTerms, daySeconds: number): Date {
  return new Date(heldAt.getTime() + terms.holdDays * daySeconds * 1000);
}

export interface SettlementSplit {
  /** Into usd_reserved, held until due. */
  held: Dec;
  /** Paid towards what the merchant owes (a negative usd_available). */
  repaid: Dec;
  /** What is left in usd_available. */
  available: Dec;
}

/**
 * One settlement's credit: first its reserve share is held, then the rest repays the
 * merchant's debt (`owed`), and what remains is available.
 */
export function splitSettlement(credit: Dec, hold: Dec, owed: Dec): SettlementSplit {
  const held = Dec.min(hold, credit);
  const rest = credit.minus(held);
  const repaid = Dec.min(rest, Dec.max(owed, 0));
  return { held, repaid, available: rest.minus(repaid) };
}

export interface OpenHold {
  depositId: string;
  /** What is still held of it. */
  remaining: Dec;
  heldAt: Date;
}

export interface ReversalDraw {
  /** Taken from holds, in the order taken (the reversed deposit's own hold first). */
  fromHolds: Array<{ depositId: string; amount: Dec }>;
  /** Taken from a positive usd_available. */
  fromAvailable: Dec;
  /** The rest: usd_available goes below zero by this much (what the merchant now owes). */
  owed: Dec;
}

/**
 * Where a liable reversal's debit comes from: the reversed deposit's own hold, then the
 * merchant's other holds oldest first (deposit id breaks a tie), then usd_available (what is
 * positive of it), and the rest takes usd_available below zero.
 */
export function drawForReversal(
  debit: Dec,
  reversedDepositId: string,
  holds: readonly OpenHold[],
  available: Dec,
): ReversalDraw {
  const ordered = [...holds].sort((a, b) => {
    if (a.depositId === reversedDepositId) return -1;
    if (b.depositId === reversedDepositId) return 1;
    const byTime = a.heldAt.getTime() - b.heldAt.getTime();
    return byTime !== 0 ? byTime : a.depositId < b.depositId ? -1 : 1;
  });
  let left = debit;
  const fromHolds: ReversalDraw['fromHolds'] = [];
  for (const hold of ordered) {
    if (left.isZero()) break;
    const take = Dec.min(left, hold.remaining);
    if (take.isZero()) continue;
    fromHolds.push({ depositId: hold.depositId, amount: take });
    left = left.minus(take);
  }
  const fromAvailable = Dec.min(left, Dec.max(available, 0));
  return { fromHolds, fromAvailable, owed: left.minus(fromAvailable) };
}
