import type { TransitionTable } from './transitions';

/**
 * What an onramp's status is at a given instant. The expiry sweep persists EXPIRED and frees
 * the virtual account; reads use this so a short-lived onramp reads EXPIRED from the moment
 * its TTL ends, not from the next sweep.
 */
export function onrampStatusAt(
  onramp: { status: string; expiresAt: Date | null },
  now: Date,
): string {
  if (onramp.status === 'ACTIVE' && onramp.expiresAt !== null && onramp.expiresAt <= now) {
    return 'EXPIRED';
  }
  return onramp.status;
}

export type OnrampLifecycleStatus = 'ACTIVE' | 'EXPIRED' | 'COMPLETED' | 'DEACTIVATED';

/**
 * The onramp lifecycle as data: every onramp starts ACTIVE; a short-lived one EXPIRES at its
 * TTL (the sweep) or COMPLETES on its one transfer (THROWAWAY); a PERMANENT one is DEACTIVATED
 * by its merchant. None comes back.
 */
export const ONRAMP_LIFECYCLE: TransitionTable<OnrampLifecycleStatus> = {
  subject: 'onramp',
  initial: ['ACTIVE'],
  moves: {
    ACTIVE: ['EXPIRED', 'COMPLETED', 'DEACTIVATED'],
    EXPIRED: [],
    COMPLETED: [],
    DEACTIVATED: [],
  },
};
