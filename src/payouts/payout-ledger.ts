import type { Payout } from './payout.entity';
import { merchantAccount, OPERATOR, type LedgerAccountSpec } from '../domain/ledger';

/**
 * Where a payout's USD waits while it is owed on-chain: a deposit's converted USD in the
 * operator's usd_payouts_pending, a withdrawal's in the merchant's usd_pending_withdrawal.
 */
export function payoutHolding(payout: Payout): LedgerAccountSpec {
  return payout.depositId
    ? OPERATOR.usdPayoutsPending
    : merchantAccount(payout.merchantId, 'usd_pending_withdrawal');
}

/**
 * Where it goes when the transfer does not happen (cancelled or reverted): a deposit's USD is
 * held in suspense with its FLAGGED deposit; a withdrawal's returns to the merchant.
 */
export function payoutReturn(payout: Payout): LedgerAccountSpec {
  return payout.depositId
    ? OPERATOR.usdSuspense
    : merchantAccount(payout.merchantId, 'usd_available');
}
