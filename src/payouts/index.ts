/**
 * The payouts module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { PayoutBlockFollower } from './payout-block-follower';
export { PayoutReorgs } from './payout-reorg';
export type { ReorgedPayout, ReorgLog } from './payout-reorg';
export { PayoutSweepService } from './payout-sweep.service';
export { withdrawalsOfPayouts } from './payout-withdrawals';
export { PayoutService } from './payout.service';
export type { SigningLog, SigningTotals } from './payout.service';
export { presentWithdrawal } from './withdrawal-view';
export { WithdrawalService } from './withdrawal.service';
export { WithdrawalAddressBookService } from './withdrawal-address-book.service';
export type {
  AddressBookActor,
  NewWithdrawalAddressInput,
} from './withdrawal-address-book.service';
export { presentWithdrawalAddress } from './withdrawal-address-view';
export type { WithdrawalAddressView } from './withdrawal-address-view';

import type { Withdrawal } from './withdrawal.entity';
/** A withdrawal as transports and other modules see it: read-only. */
export type WithdrawalRecord = Readonly<Withdrawal>;

export { latestPayoutOf, lockPendingPayoutOf } from './payout-reads';
export type { PayoutRecord } from './payout-reads';
export { bookMinedPayouts, finishMinedWithdrawals } from './payout-settle';
export type { BookedPayouts } from './payout-settle';
export type {
  CancelledPayoutOwner,
  MinedPayout,
  MinedPayoutBooking,
  PayoutRiskReview,
} from './payout-ports';
export { OPEN_PAYOUT_STATUSES, STUCK_PAYOUTS_SQL } from './payout-gauges';
