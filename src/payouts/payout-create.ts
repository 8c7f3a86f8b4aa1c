import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { Payout } from './payout.entity';
import { newId } from '../domain/ids';
import { dec } from '../domain/money';
import { toBaseUnits } from '../domain/payout-rules';
import { insertPayouts } from './payout-store';
import { movePayout } from './payout-transitions';

export interface NewPayout {
  merchantId: string;
  chain: string;
  asset: string;
  toAddress: string;
  amount: string;
  depositId?: string;
  withdrawalId?: string;
  /** The trace its signing spans join (its deposit's); null or unset when untraced. */
  traceParent?: string | null;
}

/**
 * The create stage: the payout rows of transfers we owe, inside the caller's transaction
 * (a deposit settlement batch, or a withdrawal request), in one statement. Each insert's
 * NOTIFY on `payout_events` wakes a signer after commit.
 */
export async function createPayouts(
  tx: EntityManager,
  clock: Clock,
  inputs: NewPayout[],
): Promise<Payout[]> {
  const now = clock.now();
  const payouts = inputs.map((input) => newPayout(clock, input, now));
  const traces = new Map(payouts.map((payout, i) => [payout.id, inputs[i].traceParent ?? null]));
  await insertPayouts(tx, payouts, traces);
  return payouts;
}

function newPayout(clock: Clock, input: NewPayout, now: Date): Payout {
  const payout = Object.assign(new Payout(), {
    id: newId('po', clock),
    depositId: input.depositId ?? null,
    withdrawalId: input.withdrawalId ?? null,
    merchantId: input.merchantId,
    chain: input.chain,
    asset: input.asset,
    toAddress: input.toAddress,
    amount: dec(input.amount).toFixed(6),
    amountBaseUnits: toBaseUnits(input.amount).toString(),
    fromAddress: null,
    tokenAddress: null,
    nonce: null,
    txHash: null,
    signedAt: null,
    broadcastAt: null,
    lastBroadcastAt: null,
    confirmedAt: null,
    blockNumber: null,
    blockHash: null,
    reorgedAt: null,
    cancelReason: null,
    createdAt: now,
  });
  movePayout(payout, { to: 'PENDING' }, now);
  return payout;
}
