import type { Logger } from 'pino';
import type { Clock } from '../../../clock';
import {
  agreeOnPrice,
  type Agreement,
  type AgreementRule,
  type PriceObservation,
} from '../../../domain/rate-agreement';
import { RateSourceUnavailableError, type MarketRates, type RateSource } from '../rate-source';
import {
  problemForAll,
  STABLECOINS,
  type MarketPriceSource,
  type Quote,
  type Stablecoin,
} from './market-price-source';

export interface MedianRateSourceOptions {
  clock: Clock;
  rule: AgreementRule;
  /** Each source's answer must arrive within this long; all are asked at once. */
  timeoutMs: number;
  log?: Logger;
}

/** The last aggregation: when, and per stablecoin which sources counted and which did not. */
export interface MedianReport {
  at: Date;
  outcomes: Record<Stablecoin, Agreement>;
}

/**
 * Several public market prices behind the one `RateSource` face: every source is asked in
 * parallel, each within the timeout, and each stablecoin's rate is `agreeOnPrice` of their
 * answers (src/domain/rate-agreement.ts). Without agreement on both stablecoins nothing is
 * published (`RateSourceUnavailableError`). USD is the USDC price: USDC is the dollar token
 * redeemable 1:1 and no source quotes a dollar against NGN on the same market
 * (docs/decisions.md, "Market rate sources").
 */
export class MedianRateSource implements RateSource {
  readonly name: string;
  private last: MedianReport | undefined;

  constructor(
    private readonly sources: readonly MarketPriceSource[],
    private readonly options: MedianRateSourceOptions,
  ) {
    if (sources.length === 0) throw new RangeError('a median needs at least one source');
    this.name = `median:${sources.map((source) => source.name).join(',')}`;
  }

  /** What the last call found (for health reports and logs); undefined before the first. */
  lastReport(): MedianReport | undefined {
    return this.last;
  }

  async marketRates(): Promise<MarketRates> {
    const answers = await Promise.all(this.sources.map((source) => this.ask(source)));
    // Freshness is judged when the answers are in, on the injected clock.
    const at = this.options.clock.now();
    const outcomes = Object.fromEntries(
      STABLECOINS.map((coin) => {
        const observations = answers.map(({ source, quotes }) => observation(source, quotes[coin]));
        return [coin, agreeOnPrice(observations, this.options.rule, at)];
      }),
    ) as Record<Stablecoin, Agreement>;
    this.last = { at, outcomes };

    const USDC = outcomes.USDC;
    const USDT = outcomes.USDT;
    if (!USDC.agreed || !USDT.agreed) {
      throw new RateSourceUnavailableError(
        STABLECOINS.map((coin) => summary(coin, outcomes[coin])).join('; '),
      );
    }
    const excluded = STABLECOINS.filter((coin) => outcomes[coin].excluded.length > 0);
    if (excluded.length > 0) {
      // Published anyway, but an operator wants to know a source is failing before two are.
      this.options.log?.warn(
        { sources: excluded.map((coin) => summary(coin, outcomes[coin])) },
        'rate sources left out of the median',
      );
    }
    return { USDC: USDC.price, USDT: USDT.price, USD: USDC.price };
  }

  private async ask(
    source: MarketPriceSource,
  ): Promise<{ source: string; quotes: Record<Stablecoin, Quote> }> {
    const signal = AbortSignal.timeout(this.options.timeoutMs);
    try {
      return { source: source.name, quotes: await source.quotes(signal) };
    } catch (error) {
      // Sources do not reject, but a bug in one must not stop the others from counting.
      return { source: source.name, quotes: problemForAll(error) };
    }
  }
}

function observation(source: string, quote: Quote): PriceObservation {
  return 'problem' in quote ? { source, problem: quote.problem } : { source, ...quote };
}

function summary(coin: Stablecoin, outcome: Agreement): string {
  const head = outcome.agreed
    ? `${coin}: ${outcome.price.toFixed()} from ${outcome.used.join(', ')}`
    : `${coin}: no rate, ${outcome.reason}`;
  const left = outcome.excluded.map((e) => `${e.source} ${e.reason}`).join(', ');
  return left ? `${head} (left out: ${left})` : head;
}
