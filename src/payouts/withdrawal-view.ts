import type { Withdrawal } from './withdrawal.entity';
import { ASSET_DECIMALS, dec, toFixedDown } from '../domain/money';

/**
 * The REST Withdrawal object (snake_case). Built field by field so the internal
 * `failureReason` can never reach a response.
 */
export function presentWithdrawal(w: Withdrawal) {
  return {
    withdrawal_id: w.id,
    amount: toFixedDown(dec(w.amount), ASSET_DECIMALS),
    asset: w.asset,
    chain: w.chain,
    destination_address: w.destinationAddress,
    status: w.status,
    tx_hash: w.txHash,
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
  };
}
