import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { Clock } from '../clock';
import type { Payout } from '../db/entities/payout.entity';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import type { ChainHealthService } from '../system';
import { lockedPayout, storedTransactions } from './payout-rows';
import { recordWithdrawalBroadcast } from './withdrawal-finish';

/**
 * The broadcast stage: relays bytes already signed and stored, after their transaction has
 * committed, and records that it did. Resending the same bytes is always safe (the nonce can
 * be mined once), so a failed relay is left to the sweep.
 */
export class PayoutBroadcaster {
  constructor(
    private readonly clock: Clock,
    private readonly chains: ChainRegistry,
    private readonly health: ChainHealthService,
  ) {}

  /** Relays signed bytes and records it; a withdrawal shows BROADCAST with the hash. */
  async broadcast(
    em: EntityManager,
    payoutId: string,
    gateway: ChainGateway,
    raw: Hex,
  ): Promise<void> {
    try {
      await gateway.broadcast(raw);
    } catch (error) {
      // The sweep rebroadcasts the stored bytes; nothing is lost by failing here.
      await this.health.record(em, gateway.chain, error);
      return;
    }
    await em.fork().transactional(async (tx) => {
      const payout = await lockedPayout(tx, payoutId);
      if (!payout || payout.status !== 'SIGNED') return;
      const now = this.clock.now();
      payout.broadcastAt ??= now;
      payout.lastBroadcastAt = now;
      if (payout.withdrawalId) await recordWithdrawalBroadcast(tx, payout, now);
      await tx.flush();
    });
  }

  /** Resends a SIGNED payout's newest transaction. */
  async rebroadcast(em: EntityManager, payout: Payout): Promise<void> {
    const gateway = this.chains.get(payout.chain);
    const [latest] = await storedTransactions(em, payout.id);
    if (!gateway || !latest) return;
    await this.broadcast(em, payout.id, gateway, latest.raw_tx);
  }
}
