import type { Dec } from '../../domain/money';
import type { QuoteCurrency } from '../../domain/assets';

/** Mid-market NGN per unit of each quote currency, before our fee. */
export type MarketRates = Record<QuoteCurrency, Dec>;

/** Where market rates come from: a sandbox random walk, or a real venue behind the same face. */
export interface RateSource {
  readonly name: string;
  marketRates(): Promise<MarketRates>;
}

export class RateSourceUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RateSourceUnavailableError';
  }
}
