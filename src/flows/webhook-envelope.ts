import { depositViewFromSnapshot, publicDeposit } from '../deposits';
import { presentWithdrawal } from '../payouts';
import type { WithdrawalRecord as Withdrawal } from '../payouts';
import type { WithdrawalStatus } from '../domain/payout-lifecycle';

import type { OutboxEvent } from '../events';

export type { OutboxEvent };

function withdrawalFromSnapshot(s: Record<string, unknown>): Withdrawal {
  const text = (key: string): string => {
    if (typeof s[key] !== 'string') throw new Error(`withdrawal snapshot: ${key} is not a string`);
    return s[key] as string;
  };
  return {
    id: text('id'),
    merchantId: text('merchant_id'),
    amount: text('amount'),
    asset: text('asset'),
    chain: text('chain'),
    destinationAddress: text('destination_address'),
    status: text('status') as WithdrawalStatus,
    txHash: typeof s.tx_hash === 'string' ? s.tx_hash : null,
    failureReason: null,
    createdAt: new Date(text('created_at')),
    updatedAt: new Date(text('updated_at')),
  };
}

/**
 * What a deposit event carries beyond the Deposit (added to its outbox row when written):
 * `deposit.reversed` has `merchant_debit` when the merchant was liable (docs/api.md, v0.3).
 */
function depositExtras(event: OutboxEvent): Record<string, string> {
  const debit = event.snapshot.merchant_debit;
  return event.kind === 'deposit.reversed' && typeof debit === 'string'
    ? { merchant_debit: debit }
    : {};
}

/**
 * The webhook body: the spec's envelope `{event, event_id, created_at, data}`. `data` is the
 * full REST object (Deposit, Withdrawal, ApiKey, WithdrawalAddress, MerchantSettings) as it
 * was when the event was written, from the outbox snapshot, so every retry and replay sends
 * the same bytes' meaning.
 */
export function webhookEnvelope(event: OutboxEvent): string {
  // Events of neither a deposit nor a withdrawal (API keys, address book, settings,
  // test.ping) were written with their public shape as the snapshot: it is the data.
  const data = event.depositId
    ? { ...publicDeposit(depositViewFromSnapshot(event.snapshot)), ...depositExtras(event) }
    : event.withdrawalId
      ? presentWithdrawal(withdrawalFromSnapshot(event.snapshot))
      : event.snapshot;
  return JSON.stringify({
    event: event.kind,
    event_id: event.id,
    created_at: event.createdAt.toISOString(),
    data,
  });
}
