import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { Payout } from '../db/entities/payout.entity';
import { newId } from '../domain/ids';
import { dec } from '../domain/money';
import { toBaseUnits } from '../domain/payout-rules';
import { movePayout } from './payout-transitions';

export interface NewPayout {
  merchantId: string;
  chain: string;
  asset: string;
  toAddress: string;
  amount: string;
  depositId?: string;
  withdrawalId?: string;
}

/**
 * The create stage: the payout row of a transfer we owe, inside the caller's transaction
 * (deposit FX, or withdrawal request). Its insert's NOTIFY on `payout_events` wakes a signer
 * after commit.
 */
export async function createPayout(
  tx: EntityManager,
  clock: Clock,
  input: NewPayout,
): Promise<Payout> {
  const now = clock.now();
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
    cancelReason: null,
    createdAt: now,
  });
  movePayout(payout, { to: 'PENDING' }, now);
  tx.persist(payout);
  await tx.flush();
  return payout;
}
