import type { EntityManager } from '@mikro-orm/postgresql';
import type { Address } from 'viem';
import type { Clock } from '../clock';
import type { ChainGateway, Stablecoin } from '../adapters/chain/chain-gateway';
import { bumpedFees } from '../domain/payout-rules';
import type { PayoutBroadcaster } from './payout-broadcast';
import { storeTransaction, type StoredTransaction } from './payout-rows';
import { lockedPayout, savePayouts } from './payout-store';

/**
 * The bump stage: a SIGNED payout stuck in the mempool is replaced at the SAME nonce with
 * higher fees. Every replacement is stored before it is broadcast, and whichever of the
 * payout's transactions is mined settles it: the nonce can be mined only once.
 */
export class FeeBumper {
  constructor(
    private readonly clock: Clock,
    private readonly broadcaster: PayoutBroadcaster,
  ) {}

  /** Same nonce, higher fees: whichever of the payout's transactions is mined settles it. */
  async bump(
    em: EntityManager,
    payoutId: string,
    gateway: ChainGateway,
    latest: StoredTransaction,
  ): Promise<void> {
    const current = await gateway.fees();
    const fees = bumpedFees(
      {
        maxFeePerGas: BigInt(latest.max_fee_per_gas),
        maxPriorityFeePerGas: BigInt(latest.max_priority_fee_per_gas),
      },
      current,
    );
    const raw = await em.fork().transactional(async (tx) => {
      const payout = await lockedPayout(tx, payoutId);
      if (!payout || payout.status !== 'SIGNED' || payout.txHash !== latest.hash) return null;
      const nonce = Number(payout.nonce);
      const signed = await gateway.signTransfer({
        asset: payout.asset as Stablecoin,
        to: payout.toAddress as Address,
        amount: BigInt(payout.amountBaseUnits),
        nonce,
        fees,
      });
      const now = this.clock.now();
      await storeTransaction(tx, payout, { nonce, hash: signed.hash, raw: signed.raw, fees }, now);
      // Still SIGNED (not a move): the newest transaction's hash.
      payout.txHash = signed.hash;
      payout.updatedAt = now;
      await savePayouts(tx, [payout]);
      return signed.raw;
    });
    if (raw) await this.broadcaster.broadcast(em, payoutId, gateway, raw);
  }
}
