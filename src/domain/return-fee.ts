import { Dec } from './money';

/**
 * The operator's flat NGN fee for sending a deposit back (`RETURN_FEE_NGN`), never more than
 * the deposit itself: a deposit smaller than the fee is returned as nothing sent and all fee
 * would be odd, so the fee is capped at the amount and the payer gets the rest (maybe zero).
 * Kobo precision, rounded down in the payer's favour.
 */
export function returnFee(amountNgn: Dec, configuredFeeNgn: Dec): Dec {
  if (configuredFeeNgn.isNeg()) throw new RangeError('the return fee must not be negative');
  const fee = Dec.min(configuredFeeNgn, amountNgn).toDecimalPlaces(2, Dec.ROUND_DOWN);
  return fee;
}

/** What reaches the payer: the amount minus the fee. */
export function returnedToPayer(amountNgn: Dec, configuredFeeNgn: Dec): Dec {
  return amountNgn.minus(returnFee(amountNgn, configuredFeeNgn));
}
