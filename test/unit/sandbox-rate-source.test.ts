import { dec, Dec } from '../../src/domain/money';
import { nextStep, SandboxRateSource } from '../../src/adapters/fx/sandbox-rate-source';
import { RateSourceUnavailableError } from '../../src/adapters/fx/rate-source';

/** Deterministic LCG (Numerical Recipes constants) returning [0, 1). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

const ANCHOR = dec('1545');

describe('nextStep', () => {
  it('stays within [1350, 1750] and moves at most 0.25% plus reversion over 10,000 steps', () => {
    const random = lcg(42);
    let value: Dec = ANCHOR;
    let min = value;
    let max = value;
    for (let i = 0; i < 10_000; i += 1) {
      const next = nextStep(value, random);
      expect(next.gte(1350) && next.lte(1750)).toBe(true);
      const pull = ANCHOR.minus(value).times('0.05');
      const shock = next.minus(value).minus(pull).abs();
      // 0.25% of the previous value, plus half a unit of the 4-decimal rounding
      expect(shock.lte(value.times('0.0025').plus('0.00005'))).toBe(true);
      expect(next.decimalPlaces()).toBeLessThanOrEqual(4);
      min = Dec.min(min, next);
      max = Dec.max(max, next);
      value = next;
    }
    // the walk actually moves
    expect(max.minus(min).gt(1)).toBe(true);
  });

  it('is deterministic for a given random sequence', () => {
    const run = (seed: number) => {
      const random = lcg(seed);
      let value: Dec = ANCHOR;
      for (let i = 0; i < 100; i += 1) value = nextStep(value, random);
      return value.toString();
    };
    expect(run(7)).toBe(run(7));
    expect(run(7)).not.toBe(run(8));
  });

  it('with a neutral draw only reverts 5% of the gap toward 1545', () => {
    expect(nextStep(dec('1545'), () => 0.5).toString()).toBe('1545');
    expect(nextStep(dec('1645'), () => 0.5).toString()).toBe('1640'); // 1645 - 100 x 0.05
    expect(nextStep(dec('1445'), () => 0.5).toString()).toBe('1450');
  });

  it('with extreme draws moves by 0.25% of the previous value', () => {
    // 1545 x 0.0025 = 3.8625
    expect(nextStep(dec('1545'), () => 0).toString()).toBe('1541.1375');
    expect(nextStep(dec('1545'), () => 1).toString()).toBe('1548.8625');
  });

  it('clamps values outside the band to its edges', () => {
    expect(nextStep(dec('2000'), () => 1).toString()).toBe('1750');
    expect(nextStep(dec('1000'), () => 0).toString()).toBe('1350');
  });
});

describe('SandboxRateSource', () => {
  it('returns USD, USDC and USDT, with USDT at a premium over USDC', async () => {
    const source = new SandboxRateSource({ random: () => 0.5 });
    const rates = await source.marketRates();
    expect(Object.keys(rates).sort()).toEqual(['USD', 'USDC', 'USDT']);
    expect(rates.USD.toString()).toBe('1545');
    expect(rates.USDC.toString()).toBe('1545');
    expect(rates.USDT.toString()).toBe('1546.854'); // 1545 x 1.0012
    expect(rates.USDT.gt(rates.USDC)).toBe(true);
  });

  it('keeps USDT above USDC along a seeded walk', async () => {
    const source = new SandboxRateSource({ random: lcg(99) });
    for (let i = 0; i < 200; i += 1) {
      const rates = await source.marketRates();
      expect(rates.USDT.gt(rates.USDC)).toBe(true);
      expect(rates.USD.eq(rates.USDC)).toBe(true);
    }
  });

  it('rejects with RateSourceUnavailableError when the scenario takes it down', async () => {
    const source = new SandboxRateSource({ random: () => 0.5, isDown: async () => true });
    await expect(source.marketRates()).rejects.toBeInstanceOf(RateSourceUnavailableError);
  });

  it('works when isDown says it is up', async () => {
    const source = new SandboxRateSource({ random: () => 0.5, isDown: async () => false });
    await expect(source.marketRates()).resolves.toHaveProperty('USDC');
  });

  it('starts from the previous published rate, then continues from its own last value', async () => {
    const previous = jest.fn(async () => dec('1600'));
    const source = new SandboxRateSource({ random: () => 0.5, previousNgnPerUsd: previous });
    const first = await source.marketRates();
    expect(first.USD.toString()).toBe('1597.25'); // 1600 - 55 x 0.05
    const second = await source.marketRates();
    expect(second.USD.toString()).toBe('1594.6375'); // 1597.25 - 52.25 x 0.05
    expect(previous).toHaveBeenCalledTimes(1);
  });

  it('falls back to startNgnPerUsd when there is no previous rate', async () => {
    const source = new SandboxRateSource({
      random: () => 0.5,
      previousNgnPerUsd: async () => undefined,
      startNgnPerUsd: dec('1445'),
    });
    expect((await source.marketRates()).USD.toString()).toBe('1450');
  });
});
