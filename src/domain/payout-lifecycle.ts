import type { TransitionTable } from './transitions';

export const PAYOUT_STATUSES = ['PENDING', 'SIGNED', 'CONFIRMED', 'FAILED', 'CANCELLED'] as const;
/**
 * PENDING: owed, not signed (no nonce yet; may still be cancelled). SIGNED: a nonce is taken
 * and the signed bytes are stored; it is broadcast until one of its transactions is mined and
 * is never abandoned. CONFIRMED / FAILED (mined but reverted): booked, and final unless a reorg
 * removes the block that held it. CANCELLED (never signed).
 */
export type PayoutStatus = (typeof PAYOUT_STATUSES)[number];

/**
 * The payout lifecycle as data. A payout is signed once (a fee bump or a rebroadcast keeps it
 * SIGNED: same nonce, new bytes) and is cancelled only before that: once a nonce is taken the
 * transfer may be mined at any moment, so only the chain ends a SIGNED payout.
 */
export const PAYOUT_LIFECYCLE: TransitionTable<PayoutStatus> = {
  subject: 'payout',
  initial: ['PENDING'],
  moves: {
    // Signed under the hot wallet's nonce lock; or cancelled (risk review, chain outage past
    // its maximum, bank reversal of its deposit).
    PENDING: ['SIGNED', 'CANCELLED'],
    // Mined: CONFIRMED, or FAILED if the transfer reverted.
    SIGNED: ['CONFIRMED', 'FAILED'],
    // A reorg took away the block that held it: back to waiting for its nonce to be mined
    // (the same bytes are resent). Its ledger entry and its owner's move stand (`reorged_at`).
    CONFIRMED: ['SIGNED'],
    FAILED: ['SIGNED'],
    CANCELLED: [],
  },
};

export const WITHDRAWAL_STATUSES = ['PENDING', 'BROADCAST', 'COMPLETED', 'FAILED'] as const;
export type WithdrawalStatus = (typeof WITHDRAWAL_STATUSES)[number];

/**
 * The withdrawal lifecycle as data: its payout's progress as the merchant sees it. BROADCAST
 * once its transfer is relayed; COMPLETED or FAILED once mined. A transfer can be mined before
 * its broadcast is recorded (the node took it, then the relay's answer or the runner was
 * lost), and a payout cancelled before signing fails its withdrawal, so PENDING may end
 * directly. COMPLETED and FAILED are final (the database refuses to leave them too).
 */
export const WITHDRAWAL_LIFECYCLE: TransitionTable<WithdrawalStatus> = {
  subject: 'withdrawal',
  initial: ['PENDING'],
  moves: {
    PENDING: ['BROADCAST', 'COMPLETED', 'FAILED'],
    BROADCAST: ['COMPLETED', 'FAILED'],
    COMPLETED: [],
    FAILED: [],
  },
};
