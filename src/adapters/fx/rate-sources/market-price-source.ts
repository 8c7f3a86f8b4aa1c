import type { RealRateSourceName } from '../../../config-rates';
import type { Dec } from '../../../domain/money';

/** The stablecoins real sources are asked about; USD is derived (docs/providers-rates.md). */
export const STABLECOINS = ['USDC', 'USDT'] as const;
export type Stablecoin = (typeof STABLECOINS)[number];

/** One source's answer for one stablecoin: NGN per unit, or why there is none. */
export type Quote = { price: Dec; observedAt?: Date } | { problem: string };

/** A public market price feed for USDC/NGN and USDT/NGN. */
export interface MarketPriceSource {
  readonly name: RealRateSourceName;
  /** Never rejects for a source's fault: each stablecoin gets a price or a problem. */
  quotes(signal: AbortSignal): Promise<Record<Stablecoin, Quote>>;
}

/** A source's answer that cannot be used, in words for the operator's log. */
export class SourceProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceProblem';
  }
}

/** Asks for each stablecoin on its own (one request each), so one missing market spares the other. */
export async function quotePerStablecoin(
  quote: (coin: Stablecoin) => Promise<Quote>,
): Promise<Record<Stablecoin, Quote>> {
  const answers = await Promise.all(STABLECOINS.map((coin) => quote(coin).catch(asProblem)));
  return { USDC: answers[0], USDT: answers[1] };
}

/** The same problem for every stablecoin (one request served both and failed). */
export function problemForAll(error: unknown): Record<Stablecoin, Quote> {
  const problem = asProblem(error);
  return { USDC: problem, USDT: problem };
}

export function asProblem(error: unknown): { problem: string } {
  if (error instanceof SourceProblem) return { problem: error.message };
  return { problem: `failed: ${error instanceof Error ? error.message : String(error)}` };
}
