import type { Deposit } from './deposit.entity';

/** What the audit log keeps of a deposit before and after an operator action (no PII). */
export function depositSnapshot(deposit: Deposit): Record<string, unknown> {
  return {
    status: deposit.status,
    flag_reason: deposit.flagReason,
    failure_reason: deposit.failureReason,
    rate_id: deposit.rateId,
    amount_asset: deposit.amountAsset,
    fx_executed_at: deposit.fxExecutedAt?.toISOString() ?? null,
    reversed_at: deposit.reversedAt?.toISOString() ?? null,
    tx_hash: deposit.txHash,
  };
}
