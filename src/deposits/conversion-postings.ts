import type { Dec } from '../domain/money';
import { OPERATOR, transfer, type LedgerAccountSpec, type Posting } from '../domain/ledger';

/**
 * NGN leaves clearing for the venue; the USD it bought lands in the treasury, owed up to
 * `amount_asset` (to the merchant's balance, or on-chain for AUTO_WITHDRAW) and the rest (the
 * fee spread) earned by the operator.
 */
export function conversionPostings(
  owedTo: LedgerAccountSpec,
  amountNgn: Dec,
  usdBought: Dec,
  amountAsset: Dec,
): Posting[] {
  const spread = usdBought.minus(amountAsset);
  return [
    ...transfer(OPERATOR.ngnClearing, OPERATOR.ngnBank, amountNgn),
    ...transfer(OPERATOR.usdTreasury, owedTo, amountAsset),
    ...(spread.isNeg()
      ? transfer(OPERATOR.usdFxRevenue, OPERATOR.usdTreasury, spread.neg())
      : transfer(OPERATOR.usdTreasury, OPERATOR.usdFxRevenue, spread)),
  ];
}
