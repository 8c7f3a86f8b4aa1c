import type { Logger } from 'pino';
import type { Clock } from '../../../clock';
import type { RealRateSourceName } from '../../../config-rates';
import { CoinbasePriceSource } from './coinbase-price-source';
import { CoinGeckoPriceSource } from './coingecko-price-source';
import { LunoPriceSource } from './luno-price-source';
import type { MarketPriceSource } from './market-price-source';
import { MedianRateSource } from './median-rate-source';
import { QuidaxPriceSource } from './quidax-price-source';

export { MedianRateSource, type MedianReport } from './median-rate-source';
export type { MarketPriceSource, Quote, Stablecoin } from './market-price-source';

/** The settings the real sources read (a slice of `Config`). */
export interface MarketRateSettings {
  RATE_SOURCES: readonly string[];
  RATE_SOURCES_MIN: number;
  RATE_SOURCES_MAX_SPREAD_BPS: number;
  RATE_SOURCES_MAX_AGE_SECONDS: number;
  RATE_SOURCE_TIMEOUT_MS: number;
  QUIDAX_BASE_URL: string;
  LUNO_BASE_URL: string;
  COINBASE_BASE_URL: string;
  COINGECKO_BASE_URL: string;
  COINGECKO_API_KEY?: string;
}

/** One adapter per name `RATE_SOURCES` may hold (the sandbox is built by the rate job). */
function priceSource(name: RealRateSourceName, settings: MarketRateSettings): MarketPriceSource {
  switch (name) {
    case 'quidax':
      return new QuidaxPriceSource(settings.QUIDAX_BASE_URL);
    case 'luno':
      return new LunoPriceSource(settings.LUNO_BASE_URL);
    case 'coinbase':
      return new CoinbasePriceSource(settings.COINBASE_BASE_URL);
    case 'coingecko':
      return new CoinGeckoPriceSource(settings.COINGECKO_BASE_URL, settings.COINGECKO_API_KEY);
  }
}

/** The median of the real sources `RATE_SOURCES` names, in its order. */
export function marketRateSource(
  settings: MarketRateSettings,
  clock: Clock,
  log?: Logger,
): MedianRateSource {
  const sources = settings.RATE_SOURCES.map((name) => {
    if (name === 'sandbox') throw new RangeError('the sandbox is not a market price source');
    return priceSource(name as RealRateSourceName, settings);
  });
  return new MedianRateSource(sources, {
    clock,
    log,
    timeoutMs: settings.RATE_SOURCE_TIMEOUT_MS,
    rule: {
      minSources: settings.RATE_SOURCES_MIN,
      maxSpreadBps: settings.RATE_SOURCES_MAX_SPREAD_BPS,
      maxAgeSeconds: settings.RATE_SOURCES_MAX_AGE_SECONDS,
    },
  });
}
