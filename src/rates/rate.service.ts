import { raw } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Clock } from '../clock';
import { DEFAULT_MIN_DEPOSIT_NGN, QUOTE_CURRENCIES, QuoteCurrency } from '../domain/assets';
import { newId } from '../domain/ids';
import { dec, Dec } from '../domain/money';
import { parseRateQuery, priceQuote, rateUnavailable, RateQuery } from '../domain/rates';
import { Rate } from './rate.entity';
import type { RateSource } from '../adapters/fx/rate-source';
import { lockForTransaction } from '../db/locks';
import type { NotificationHub } from '../db/notification-hub';
import { RATE_SOURCE_DOWN_SINCE_SQL } from '../sandbox/scenario-reads';
import { RateMemory } from './rate-memory';

export interface RateSettings {
  feeBps: number;
  intervalSeconds: number;
  ttlSeconds: number;
}

/** Serialises publication across job runners (pg_advisory_xact_lock key). */
const PUBLISH_LOCK = 4_201_001;

export type PublishOutcome =
  { published: true; rates: Rate[] } | { published: false; reason: 'recent_rate_exists' };

export class RateService {
  /** The gateway's copy of the valid rates (off until `watchPublications` starts it). */
  readonly memory: RateMemory;

  constructor(
    private readonly clock: Clock,
    private readonly settings: RateSettings,
    /** Sandbox only: merchants' `rateSourceDown` scenarios (sandbox_scenarios) apply. */
    private readonly sandboxScenarios = false,
  ) {
    this.memory = new RateMemory(clock);
  }

  /**
   * Serves `current` from memory in this process (the gateway) from now on; see RateMemory.
   * Not in the sandbox: there every merchant's quotes pass through its own scenario, so the
   * copy would never answer.
   */
  async watchPublications(options: {
    notifications: NotificationHub;
    em: EntityManager;
    log: Logger;
  }): Promise<RateMemory> {
    if (!this.sandboxScenarios) await this.memory.start(options);
    return this.memory;
  }

  /**
   * The newest published rate for `to` that has not expired, or `rate_unavailable`. For a
   * sandbox merchant whose rate source is down, only rates published before it went down
   * count: that merchant sees its quotes run out while everyone else's keep coming. The
   * scenario is read inside the same query, so a quote costs no extra round trip.
   */
  async current(em: EntityManager, query: RateQuery, merchantId?: string): Promise<Rate> {
    const { to } = parseRateQuery(query);
    // Rates are the same for every merchant unless a sandbox scenario hides some from one.
    if (!this.sandboxScenarios || !merchantId) {
      const held = this.memory.current(to);
      if (held) return held;
    }
    const rate = await em.findOne(
      Rate,
      { to, expiresAt: { $gt: this.clock.now() }, ...this.publishedForMerchant(merchantId) },
      { orderBy: { createdAt: 'desc' } },
    );
    if (!rate) throw rateUnavailable();
    return rate;
  }

  /**
   * The rate `rateId` as the merchant sees it, or null when there is no such rate. One
   * published after the merchant's rate source went down does not exist for it (it could only
   * have the id from elsewhere): `rate_unavailable`, as if no valid rate existed.
   */
  async findForMerchant(
    em: EntityManager,
    rateId: string,
    merchantId: string,
  ): Promise<Rate | null> {
    const visible = await em.findOne(Rate, {
      id: rateId,
      ...this.publishedForMerchant(merchantId),
    });
    if (visible || !this.sandboxScenarios) return visible;
    if (await this.findById(em, rateId)) throw rateUnavailable();
    return null;
  }

  /** Sandbox: only rates published up to when the merchant's rate source went down, if it did. */
  private publishedForMerchant(merchantId: string | undefined) {
    if (!this.sandboxScenarios || !merchantId) return {};
    return {
      createdAt: {
        $lte: raw(RATE_SOURCE_DOWN_SINCE_SQL, [merchantId]),
      },
    };
  }

  async findById(em: EntityManager, rateId: string): Promise<Rate | null> {
    return em.findOne(Rate, { id: rateId });
  }

  async latestMarketRate(em: EntityManager, to: QuoteCurrency): Promise<Dec | undefined> {
    const rate = await em.findOne(Rate, { to }, { orderBy: { createdAt: 'desc' } });
    return rate ? dec(rate.marketRate) : undefined;
  }

  /**
   * Publishes one rate per quote currency unless another runner published within the last
   * half interval. The source is asked outside the transaction; rows are written in one.
   */
  async publish(em: EntityManager, source: RateSource): Promise<PublishOutcome> {
    if (await this.publishedRecently(em)) return { published: false, reason: 'recent_rate_exists' };
    const market = await source.marketRates();
    return em.transactional(async (tx) => {
      await lockForTransaction(tx, PUBLISH_LOCK);
      if (await this.publishedRecently(tx)) {
        return { published: false, reason: 'recent_rate_exists' } as const;
      }
      const createdAt = this.clock.now();
      const expiresAt = new Date(createdAt.getTime() + this.settings.ttlSeconds * 1000);
      const rates = QUOTE_CURRENCIES.map((to) => {
        const quote = priceQuote(market[to], this.settings.feeBps);
        return tx.create(Rate, {
          id: newId('rate', this.clock),
          from: 'NGN',
          to,
          marketRate: market[to].toFixed(),
          rate: quote.rate.toFixed(),
          inverseRate: quote.inverseRate.toFixed(),
          feeBps: this.settings.feeBps,
          minDepositNgn: dec(DEFAULT_MIN_DEPOSIT_NGN).toFixed(2),
          source: source.name,
          createdAt,
          expiresAt,
        });
      });
      tx.persist(rates);
      return { published: true, rates } as const;
    });
  }

  private async publishedRecently(em: EntityManager): Promise<boolean> {
    const since = new Date(this.clock.now().getTime() - (this.settings.intervalSeconds * 1000) / 2);
    const count = await em.count(Rate, { createdAt: { $gt: since } });
    return count > 0;
  }
}
