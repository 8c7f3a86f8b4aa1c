import type { TransitionTable } from './transitions';

export const FX_ORDER_STATUSES = ['NEW', 'QUOTED', 'EXECUTING', 'FILLED', 'CANCELLED'] as const;
export type FxOrderStatus = (typeof FX_ORDER_STATUSES)[number];

/**
 * The lifecycle of an order at an FX venue that quotes, then executes a quote (Busha's
 * `fx_venue_orders`), as data. What was asked at the venue is recorded before it is asked, and
 * a placement that finds an order's transfer at the venue (after a crash or a lost answer)
 * records it from whatever status the order was left in, so EXECUTING is reached from every
 * status but FILLED. An order starts NEW and is QUOTED (a quote recorded), EXECUTING (its
 * execution asked, again after a crash, then the transfer recorded: the one move to the same
 * status), NEW again (the quote expired unexecuted), CANCELLED (the transfer ended without
 * converting; a later placement quotes anew) or FILLED, which is final: a fill is never
 * overwritten.
 */
export const FX_ORDER_LIFECYCLE: TransitionTable<FxOrderStatus> = {
  subject: 'FX order',
  initial: ['NEW'],
  moves: {
    NEW: ['QUOTED', 'EXECUTING'],
    QUOTED: ['EXECUTING'],
    EXECUTING: ['EXECUTING', 'NEW', 'FILLED', 'CANCELLED'],
    CANCELLED: ['QUOTED', 'EXECUTING'],
    FILLED: [],
  },
};
