import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DEFAULT_MIN_DEPOSIT_NGN, QUOTE_CURRENCIES, QuoteCurrency } from '../domain/assets';
import { newId } from '../domain/ids';
import { dec, Dec } from '../domain/money';
import { parseRateQuery, priceQuote, rateUnavailable, RateQuery } from '../domain/rates';
import { Rate } from '../db/entities/rate.entity';
import type { RateSource } from '../adapters/fx/rate-source';
import { lockForTransaction } from '../db/locks';
import type { SandboxService } from './sandbox.service';

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
  constructor(
    private readonly clock: Clock,
    private readonly settings: RateSettings,
    /** Sandbox only: where a merchant's `rateSourceDown` scenario is read. */
    private readonly scenarios?: Pick<SandboxService, 'rateSourceDownSince'>,
  ) {}

  /**
   * The newest published rate for `to` that has not expired, or `rate_unavailable`. For a
   * sandbox merchant whose rate source is down, only rates published before it went down
   * count: that merchant sees its quotes run out while everyone else's keep coming.
   */
  async current(em: EntityManager, query: RateQuery, merchantId?: string): Promise<Rate> {
    const { to } = parseRateQuery(query);
    const downSince = await this.rateSourceDownSince(em, merchantId);
    const rate = await em.findOne(
      Rate,
      {
        to,
        expiresAt: { $gt: this.clock.now() },
        ...(downSince ? { createdAt: { $lte: downSince } } : {}),
      },
      { orderBy: { createdAt: 'desc' } },
    );
    if (!rate) throw rateUnavailable();
    return rate;
  }

  /**
   * A rate published after the merchant's source went down does not exist for that merchant
   * (it could only have its id from elsewhere): answer as if no valid rate existed.
   */
  async assertPublishedForMerchant(
    em: EntityManager,
    rate: Rate,
    merchantId: string,
  ): Promise<void> {
    const downSince = await this.rateSourceDownSince(em, merchantId);
    if (downSince && rate.createdAt.getTime() > downSince.getTime()) throw rateUnavailable();
  }

  private async rateSourceDownSince(
    em: EntityManager,
    merchantId: string | undefined,
  ): Promise<Date | null> {
    if (!this.scenarios || !merchantId) return null;
    return this.scenarios.rateSourceDownSince(em, merchantId);
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
