import type { TransitionTable } from './transitions';

export enum MerchantStatus {
  ACTIVE = 'ACTIVE',
  FROZEN = 'FROZEN',
}

/**
 * The merchant lifecycle as data. A merchant starts ACTIVE; it is FROZEN by the operator or by
 * its (limit + 1)-th onramp creation of a Lagos day, and only the operator makes it ACTIVE
 * again. Freezing a frozen merchant is no move: callers answer it unchanged.
 */
export const MERCHANT_LIFECYCLE: TransitionTable<MerchantStatus> = {
  subject: 'merchant',
  initial: [MerchantStatus.ACTIVE],
  moves: {
    [MerchantStatus.ACTIVE]: [MerchantStatus.FROZEN],
    [MerchantStatus.FROZEN]: [MerchantStatus.ACTIVE],
  },
};
