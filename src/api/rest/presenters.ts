import type { OnrampRecord as Onramp } from '../../onramps';
import { onrampStatusAt } from '../../domain/onramp-status';
import type { RateRecord as Rate } from '../../rates';
import type { MerchantBalance } from '../../ledger';
import { dec } from '../../domain/money';
import { customerSummary, type CustomerSummary } from '../../onramps';

/** REST shapes (snake_case). Rates are JSON numbers as the spec shows; money amounts elsewhere are strings. */
export function presentRate(rate: Rate) {
  return {
    rate_id: rate.id,
    from: rate.from,
    to: rate.to,
    rate: Number(rate.rate),
    inverse_rate: Number(rate.inverseRate),
    fee_bps: rate.feeBps,
    market_rate: Number(rate.marketRate),
    min_deposit_ngn: Number(rate.minDepositNgn),
    created_at: rate.createdAt.toISOString(),
    expires_at: rate.expiresAt.toISOString(),
  };
}

/** What an onramp shows of its customer record: never names, phone or a full identity number. */
function presentCustomer(summary: CustomerSummary | null) {
  if (summary === null) return null;
  return { fields: summary.fields, bvn_last4: summary.bvnLast4, nin_last4: summary.ninLast4 };
}

/** REST shape of an onramp; the settlement object holds only `mode` for MERCHANT_BALANCE. */
export function presentOnramp(onramp: Onramp, now: Date) {
  return {
    onramp_id: onramp.id,
    type: onramp.type,
    status: onrampStatusAt(onramp, now),
    rate_id: onramp.rateId,
    payment_reference: onramp.paymentReference,
    virtual_account: {
      account_number: onramp.accountNumber,
      account_name: onramp.accountName,
      bank_name: onramp.bankName,
      bank_code: onramp.bankCode,
    },
    expires_at: onramp.expiresAt?.toISOString() ?? null,
    settlement:
      onramp.settlementMode === 'MERCHANT_BALANCE'
        ? { mode: onramp.settlementMode }
        : {
            mode: onramp.settlementMode,
            asset: onramp.settlementAsset ?? undefined,
            chain: onramp.settlementChain ?? undefined,
            destination_address: onramp.destinationAddress ?? undefined,
          },
    user: { email: onramp.userEmail },
    amount_ngn: onramp.amountNgn === null ? null : dec(onramp.amountNgn).toFixed(2),
    payer_name: onramp.payerName,
    customer: presentCustomer(customerSummary(onramp)),
    created_at: onramp.createdAt.toISOString(),
    updated_at: onramp.updatedAt.toISOString(),
  };
}

/** The spec's Merchant balance object; amounts are decimal strings (6 places). */
export function presentBalance(b: MerchantBalance) {
  return {
    merchant_id: b.merchantId,
    balances: {
      usd_available: b.usdAvailable,
      usd_pending_withdrawal: b.usdPendingWithdrawal,
      usd_reserved: b.usdReserved,
    },
    updated_at: b.updatedAt.toISOString(),
  };
}
