import type { DepositStatus } from './deposit-state-machine';

/** What an operator decided for a FLAGGED deposit (docs/api.md, "Deposits", manual resolution). */
export type Resolution = 'settle' | 'return';

export type PayoutState = 'PENDING' | 'SIGNED' | 'CONFIRMED' | 'FAILED' | 'CANCELLED';

/** The facts about a deposit that decide how it can be resolved. */
export interface ResolutionFacts {
  status: DepositStatus;
  converted: boolean;
  reversed: boolean;
  /** The deposit's newest payout (AUTO_WITHDRAW deposits after FX), if any. */
  latestPayout: { status: PayoutState; released: boolean } | null;
}

/**
 * How to carry a resolution out:
 * - `unwind`: the converted USD held in suspense is sold back for the deposit's NGN, which is
 *   held in NGN suspense again, so the deposit is an unconverted FLAGGED deposit once more;
 * - `release`: the USD held in suspense becomes the operator's (the bank already returned the
 *   NGN to the sender and the operator booked that loss);
 * - then the move: to PENDING_FX (converted again at the current rate), RETURNING (sent back
 *   to the payer) or, when the bank already reversed the transfer, FAILED.
 */
export interface ResolutionPlan {
  unwind: boolean;
  release: boolean;
  to: 'PENDING_FX' | 'RETURNING' | 'FAILED';
}

export class ResolutionRefused extends Error {
  override readonly name = 'ResolutionRefused';
}

const holdsUsdInSuspense = (facts: ResolutionFacts): boolean =>
  facts.latestPayout !== null &&
  (facts.latestPayout.status === 'CANCELLED' || facts.latestPayout.status === 'FAILED') &&
  !facts.latestPayout.released;

/** Decides the plan, or refuses with a reason the operator can act on. */
export function planResolution(facts: ResolutionFacts, resolution: Resolution): ResolutionPlan {
  if (facts.status !== 'FLAGGED') {
    throw new ResolutionRefused(
      `Only FLAGGED deposits can be resolved; this one is ${facts.status}`,
    );
  }
  const to = resolution === 'settle' ? 'PENDING_FX' : 'RETURNING';
  if (facts.reversed && resolution === 'settle') {
    throw new ResolutionRefused(
      'The bank reversed this transfer, so there is no NGN to settle; close it with return',
    );
  }
  if (!facts.converted) {
    return {
      unwind: false,
      release: false,
      to: facts.reversed && to === 'RETURNING' ? 'FAILED' : to,
    };
  }

  const payout = facts.latestPayout;
  if (payout && (payout.status === 'PENDING' || payout.status === 'SIGNED')) {
    throw new ResolutionRefused(
      'Its on-chain transfer is still in flight; resolve it once the transfer is mined',
    );
  }
  if (facts.reversed) {
    // The sender has the NGN back from the bank; whatever USD is still held is the operator's.
    return { unwind: false, release: holdsUsdInSuspense(facts), to: 'FAILED' };
  }
  if (!holdsUsdInSuspense(facts)) {
    throw new ResolutionRefused(
      'No converted USD is held in suspense for this deposit; run `onramp ledger check`',
    );
  }
  return { unwind: true, release: false, to };
}
