import type { DepositView } from './deposit-view';
import { ASSET_DECIMALS, fixedDownText, NGN_DECIMALS } from '../domain/money';

/** Amounts are decimal strings: NGN with 2 places, asset units with 6 (rounded down). */
export const ngnAmount = (value: string): string => fixedDownText(value, NGN_DECIMALS);
export const assetAmount = (value: string | null): string | null =>
  value === null ? null : fixedDownText(value, ASSET_DECIMALS);

/**
 * The public deposit object (snake_case): the spec's Deposit table, nothing internal. REST
 * answers it, webhooks send it as `data`, the command line prints it; one shape for all.
 */
export function publicDeposit(d: DepositView) {
  return {
    deposit_id: d.id,
    onramp_id: d.onrampId,
    merchant_id: d.merchantId,
    payment_reference: d.paymentReference,
    user_email: d.userEmail,
    amount_ngn: ngnAmount(d.amountNgn),
    bank_reference: d.bankReference,
    rate_id: d.rateId,
    amount_asset: assetAmount(d.amountAsset),
    asset: d.asset,
    chain: d.chain,
    tx_hash: d.txHash,
    status: d.status,
    failure_reason: d.failureReason,
    flag_reason: d.flagReason,
    payer: {
      account_name: d.senderName,
      account_number_last4: d.senderAccountLast4,
      bank_code: d.senderBank,
    },
    created_at: d.createdAt.toISOString(),
    settled_at: d.settledAt?.toISOString() ?? null,
    updated_at: d.updatedAt.toISOString(),
  };
}

export type PublicDeposit = ReturnType<typeof publicDeposit>;
