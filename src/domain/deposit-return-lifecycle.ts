import type { TransitionTable } from './transitions';

export const DEPOSIT_RETURN_STATUSES = [
  'PENDING',
  'SENT',
  'COMPLETED',
  'FAILED',
  'CANCELLED',
] as const;
export type DepositReturnStatus = (typeof DEPOSIT_RETURN_STATUSES)[number];

/**
 * The lifecycle of a return attempt (a `deposit_returns` row) as data. It starts PENDING, for
 * the runner to send. The bank's answer moves it: accepted (SENT; the sweep asks again, and a
 * SENT attempt answered "accepted" again stays SENT, the one move to the same status),
 * paid (COMPLETED) or refused (FAILED), from PENDING or SENT alike. A bank reversal CANCELLED
 * only an attempt never sent (PENDING, no call made). COMPLETED, FAILED and CANCELLED are
 * final: a new try is a new attempt.
 */
export const DEPOSIT_RETURN_LIFECYCLE: TransitionTable<DepositReturnStatus> = {
  subject: 'deposit return',
  initial: ['PENDING'],
  moves: {
    PENDING: ['SENT', 'COMPLETED', 'FAILED', 'CANCELLED'],
    SENT: ['SENT', 'COMPLETED', 'FAILED'],
    COMPLETED: [],
    FAILED: [],
    CANCELLED: [],
  },
};
