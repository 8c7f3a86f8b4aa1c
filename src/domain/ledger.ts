import type { Dec } from './money';
import type { DepositStatus } from './deposit-state-machine';

export type Currency = 'NGN' | 'USD';
export type Side = 'DEBIT' | 'CREDIT';

export interface LedgerAccountSpec {
  id: string;
  currency: Currency;
  /** The side that increases the account: assets and expenses DEBIT, liabilities and income CREDIT. */
  normalSide: Side;
  /** Kept as a running balance with a `>= 0` constraint (merchant balances). */
  nonNegative: boolean;
  merchantId: string | null;
}

const operator = (name: string, currency: Currency, normalSide: Side): LedgerAccountSpec => ({
  id: `operator:${name}`,
  currency,
  normalSide,
  nonNegative: false,
  merchantId: null,
});

/**
 * The operator's accounts. NGN: the bank account that receives transfers, and three
 * liabilities that say why NGN is held: clearing (awaiting FX), suspense (FLAGGED, held for
 * review), returns (FAILED, owed back to the sender), unmatched (sent to an account number no
 * onramp held). USD: the treasury that FX fills (and on-chain payouts empty), the FX spread
 * the operator earns, USD converted for AUTO_WITHDRAW deposits and owed on-chain until the
 * transfer confirms, converted USD held in suspense for deposits FLAGGED after FX, and USD the
 * operator keeps when it closes a deposit whose NGN the bank already took back (it offsets the
 * reversal loss). NGN lost to reversals after payout is an expense. Returns to the payer: the
 * NGN waits in returns while the bank sends it (RETURNING), back in suspense if it refused
 * (RETURN_FAILED); the return fee the operator keeps is income (ngn_return_fees).
 */
export const OPERATOR = {
  ngnBank: operator('ngn_bank', 'NGN', 'DEBIT'),
  ngnClearing: operator('ngn_clearing', 'NGN', 'CREDIT'),
  ngnSuspense: operator('ngn_suspense', 'NGN', 'CREDIT'),
  ngnReturns: operator('ngn_returns', 'NGN', 'CREDIT'),
  ngnUnmatched: operator('ngn_unmatched', 'NGN', 'CREDIT'),
  ngnReversalLosses: operator('ngn_reversal_losses', 'NGN', 'DEBIT'),
  ngnReturnFees: operator('ngn_return_fees', 'NGN', 'CREDIT'),
  ngnPaidTwice: operator('ngn_paid_twice', 'NGN', 'DEBIT'),
  usdTreasury: operator('usd_treasury', 'USD', 'DEBIT'),
  usdFxRevenue: operator('usd_fx_revenue', 'USD', 'CREDIT'),
  usdPayoutsPending: operator('usd_payouts_pending', 'USD', 'CREDIT'),
  usdSuspense: operator('usd_suspense', 'USD', 'CREDIT'),
  usdRecoveries: operator('usd_recoveries', 'USD', 'CREDIT'),
  // What merchants liable for reversals were debited (v0.3): it offsets ngn_reversal_losses.
  usdMerchantDebits: operator('usd_merchant_debits', 'USD', 'CREDIT'),
} as const;

/**
 * The operator accounts that may go below zero by design (`onramp ledger check` holds every
 * other one at zero or above, in its normal direction), and why: the two that stand for real
 * money (the bank account, the treasury) also hold the operator's own money, which the ledger
 * does not book, and pay the losses the operator absorbs from it; the FX revenue is where a
 * USD loss is booked.
 */
export const OPERATOR_ACCOUNTS_WITHOUT_FLOOR: Readonly<Record<string, string>> = {
  // NGN the bank takes back after FX sold it, a payer paid twice: what it then lacks is what
  // ngn_reversal_losses and ngn_paid_twice hold.
  [OPERATOR.ngnBank.id]: 'pays the NGN losses the operator absorbs, from its own money',
  // A conversion the venue filled below the USD owed still pays the USD owed.
  [OPERATOR.usdTreasury.id]: 'pays the USD owed beyond a fill, from the operator’s own money',
  // Income net of those conversions (a negative spread is negative revenue).
  [OPERATOR.usdFxRevenue.id]: 'a conversion filled below the USD owed is a loss booked here',
};

/**
 * A merchant's USD accounts: available, pending withdrawal and reserved (held until released)
 * are what the operator owes it; owed is what it owes the operator after a reversal it was
 * liable for (a receivable, normal side DEBIT). Each is kept at zero or above by the database:
 * the balance a merchant sees as `usd_available` is available less owed, so it goes below
 * zero only through owed, which only a liable reversal raises.
 */
export type MerchantBucket =
  'usd_available' | 'usd_pending_withdrawal' | 'usd_reserved' | 'usd_owed';

export const MERCHANT_BUCKETS: readonly MerchantBucket[] = [
  'usd_available',
  'usd_pending_withdrawal',
  'usd_reserved',
  'usd_owed',
];

/** A merchant's account in USD: never below zero in its normal direction. */
export function merchantAccount(merchantId: string, bucket: MerchantBucket): LedgerAccountSpec {
  return {
    id: `merchant:${merchantId}:${bucket}`,
    currency: 'USD',
    normalSide: bucket === 'usd_owed' ? 'DEBIT' : 'CREDIT',
    nonNegative: true,
    merchantId,
  };
}

/**
 * Where a deposit's NGN sits while it has not been converted: it follows the status, so a
 * status change between these moves the NGN between the accounts. After FX it is gone (sold).
 */
export function ngnHoldingOf(status: DepositStatus, converted: boolean): LedgerAccountSpec | null {
  if (converted) return null;
  switch (status) {
    case 'PENDING_FX':
      return OPERATOR.ngnClearing;
    case 'FLAGGED':
      return OPERATOR.ngnSuspense;
    case 'FAILED':
    case 'RETURNING':
      return OPERATOR.ngnReturns;
    case 'RETURN_FAILED':
      return OPERATOR.ngnSuspense;
    default:
      return null;
  }
}

export interface Posting {
  account: LedgerAccountSpec;
  direction: Side;
  amount: Dec;
}

/** Both legs of moving `amount` from the credit account's side to the debit account. */
export function transfer(
  debit: LedgerAccountSpec,
  credit: LedgerAccountSpec,
  amount: Dec,
): Posting[] {
  if (debit.currency !== credit.currency) {
    throw new Error(`cannot transfer between ${debit.currency} and ${credit.currency} accounts`);
  }
  if (amount.isZero()) return [];
  if (amount.isNeg()) throw new RangeError('transfer amount must not be negative');
  return [
    { account: debit, direction: 'DEBIT', amount },
    { account: credit, direction: 'CREDIT', amount },
  ];
}
