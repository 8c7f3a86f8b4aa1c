import { Dec, dec } from '../../domain/money';
import { MarketRates, RateSource, RateSourceUnavailableError } from './rate-source';

export interface SandboxRateSourceOptions {
  /** NGN per USD to start from when there is no previous rate (late-2026 market region). */
  startNgnPerUsd?: Dec;
  /** Previous published USD market rate, so restarts continue the walk instead of jumping. */
  previousNgnPerUsd?: () => Promise<Dec | undefined>;
  /** Whether the sandbox scenario has taken the source down. */
  isDown?: () => Promise<boolean>;
  /** Uniform random in [0, 1); injected so tests are repeatable. */
  random?: () => number;
}

const ANCHOR = dec('1545');
const BAND_LOW = dec('1350');
const BAND_HIGH = dec('1750');
const MAX_STEP = dec('0.0025'); // at most 0.25% per tick
const REVERSION = dec('0.05'); // pulls 5% of the gap back toward the anchor each tick
const USDT_PREMIUM = dec('1.0012'); // USDT trades slightly above USDC against NGN

/**
 * A mean-reverting random walk near the NGN/USD market. USDC tracks USD; USDT carries a small
 * premium. Values are rounded to 4 decimals like a venue's ticker.
 */
export class SandboxRateSource implements RateSource {
  readonly name = 'sandbox';
  private last: Dec | undefined;

  constructor(private readonly options: SandboxRateSourceOptions = {}) {}

  async marketRates(): Promise<MarketRates> {
    if (this.options.isDown && (await this.options.isDown())) {
      throw new RateSourceUnavailableError('sandbox rate source is down (scenario rateSourceDown)');
    }
    const previous =
      this.last ??
      (this.options.previousNgnPerUsd ? await this.options.previousNgnPerUsd() : undefined) ??
      this.options.startNgnPerUsd ??
      ANCHOR;
    const next = nextStep(previous, this.options.random ?? Math.random);
    this.last = next;
    return {
      USD: next,
      USDC: next,
      USDT: next.times(USDT_PREMIUM).toDecimalPlaces(4, Dec.ROUND_HALF_EVEN),
    };
  }
}

export function nextStep(previous: Dec, random: () => number): Dec {
  const shock = previous.times(MAX_STEP).times(dec(random()).times(2).minus(1));
  const pull = ANCHOR.minus(previous).times(REVERSION);
  const next = previous.plus(shock).plus(pull);
  return Dec.min(BAND_HIGH, Dec.max(BAND_LOW, next)).toDecimalPlaces(4, Dec.ROUND_HALF_EVEN);
}
