import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Config } from '../config';
import { Payout } from '../db/entities/payout.entity';
import type { ChainRegistry } from '../adapters/chain/chain-registry';
import { outageOutlasted } from '../domain/payout-rules';
import type { ChainHealthService } from './chain-health.service';
import type { PayoutService } from './payout.service';

export interface SweepReport {
  chain: string;
  healthy: boolean;
  signed: number;
  confirmed: number;
  failed: number;
  bumped: number;
  rebroadcast: number;
  cancelled: number;
  /** Nonces used by transactions we did not sign: an operator must look. */
  foreign: string[];
}

/** A PENDING payout this old has missed its immediate trigger (or waits for its chain). */
const STALLED_MS = 2_000;
const BATCH = 500;

/**
 * The payout flow's repair loop, per chain: probes the node, signs payouts whose trigger was
 * lost, cancels those that outlasted an outage, and walks every SIGNED payout to its receipt
 * (confirming, fee-bumping or rebroadcasting). The database says what is unfinished.
 */
export class PayoutSweepService {
  constructor(
    private readonly clock: Clock,
    private readonly config: Config,
    private readonly chains: ChainRegistry,
    private readonly health: ChainHealthService,
    private readonly payouts: PayoutService,
  ) {}

  async sweep(em: EntityManager, chain: string): Promise<SweepReport> {
    const report: SweepReport = {
      chain,
      healthy: false,
      signed: 0,
      confirmed: 0,
      failed: 0,
      bumped: 0,
      rebroadcast: 0,
      cancelled: 0,
      foreign: [],
    };
    const probe = await this.health.probe(em, chain);
    report.healthy = probe.healthy;
    const now = this.clock.now();
    const stalled = await em
      .fork()
      .find(
        Payout,
        { chain, status: 'PENDING', createdAt: { $lt: new Date(now.getTime() - STALLED_MS) } },
        { orderBy: { createdAt: 'asc' }, limit: BATCH },
      );
    for (const payout of stalled) {
      if (!probe.healthy) {
        // Nothing is signed while the chain is down; only the outage maximum is enforced.
        if (outageOutlasted(payout.createdAt, now, this.config.CHAIN_OUTAGE_MAX_SECONDS)) {
          if (await this.payouts.cancel(em, payout.id, 'chain outage')) report.cancelled += 1;
        }
        continue;
      }
      const outcome = await this.payouts.send(em, payout.id);
      if (outcome === 'signed') report.signed += 1;
      if (outcome === 'cancelled') report.cancelled += 1;
    }
    const gateway = this.chains.get(chain);
    if (!probe.healthy || !gateway) return report;

    const minedNonce = await gateway.nonce('latest');
    const inFlight = await em
      .fork()
      .find(Payout, { chain, status: 'SIGNED' }, { orderBy: { nonce: 'asc' }, limit: BATCH });
    for (const payout of inFlight) {
      const outcome = await this.payouts.check(em, payout, gateway, {
        head: probe.head,
        minedNonce,
      });
      if (outcome === 'confirmed') report.confirmed += 1;
      else if (outcome === 'failed') report.failed += 1;
      else if (outcome === 'bumped') report.bumped += 1;
      else if (outcome === 'rebroadcast') report.rebroadcast += 1;
      else if (outcome === 'foreign') report.foreign.push(payout.nonce!);
    }
    return report;
  }
}
