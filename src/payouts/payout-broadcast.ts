import type { EntityManager } from '@mikro-orm/postgresql';
import type { Hex } from 'viem';
import type { Clock } from '../clock';
import type { Payout } from './payout.entity';
import type { ChainGateway } from '../adapters/chain/chain-gateway';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import type { ChainHealth as ChainHealthService } from './chain-health-port';
import { storedTransactions } from './payout-rows';
import { lockedPayout, lockPayouts, savePayouts } from './payout-store';
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
      await savePayouts(tx, [payout]);
      if (payout.withdrawalId) await recordWithdrawalBroadcast(tx, payout, now);
      await tx.flush();
    });
  }

  /**
   * A signing batch's bytes, relayed side by side right after its commit, then recorded in
   * one transaction (one read of the payouts, one update). Returns how many were relayed.
   */
  async broadcastAll(
    em: EntityManager,
    gateway: ChainGateway,
    signed: Array<{ payoutId: string; raw: Hex }>,
  ): Promise<number> {
    const relayed = await Promise.allSettled(signed.map(({ raw }) => gateway.broadcast(raw)));
    const failed = relayed.find((r): r is PromiseRejectedResult => r.status === 'rejected');
    // The sweep rebroadcasts the stored bytes of any that failed; nothing is lost.
    if (failed) await this.health.record(em, gateway.chain, failed.reason);
    const ids = signed.filter((_, k) => relayed[k].status === 'fulfilled').map((s) => s.payoutId);
    if (ids.length === 0) return 0;
    await em.fork().transactional(async (tx) => {
      const payouts = await lockPayouts(tx, ids, { order: 'id', status: 'SIGNED' });
      const now = this.clock.now();
      for (const payout of payouts) {
        payout.broadcastAt ??= now;
        payout.lastBroadcastAt = now;
      }
      await savePayouts(tx, payouts);
      for (const payout of payouts) {
        if (payout.withdrawalId) await recordWithdrawalBroadcast(tx, payout, now);
      }
      // The withdrawals' moves (the ORM's rows).
      await tx.flush();
    });
    return ids.length;
  }

  /** Resends a SIGNED payout's newest transaction. */
  async rebroadcast(em: EntityManager, payout: Payout): Promise<void> {
    const gateway = this.chains.get(payout.chain);
    const [latest] = await storedTransactions(em, payout.id);
    if (!gateway || !latest) return;
    await this.broadcast(em, payout.id, gateway, latest.raw_tx);
  }
}
