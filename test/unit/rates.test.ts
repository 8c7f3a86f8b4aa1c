import { Dec, dec } from '../../src/domain/money';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { parseRateQuery, priceQuote } from '../../src/domain/rates';

/** Deterministic LCG (Numerical Recipes constants) returning [0, 1). */
function lcg(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 2 ** 32;
  };
}

describe('priceQuote', () => {
  it('applies the fee to the inverse rate, rounding down to 12 places, and rounds the rate up to 6', () => {
    // 1/1500 = 0.000666666666..., x 0.995 = 0.000663333333333... -> down to 0.000663333333
    // 1/0.000663333333 = 1507.5376891997... -> up to 1507.537690
    const { rate, inverseRate } = priceQuote(dec('1500'), 50);
    expect(inverseRate.toFixed()).toBe('0.000663333333');
    expect(rate.toFixed()).toBe('1507.53769');
    expect(rate.toFixed(6)).toBe('1507.537690');
  });

  it('with fee 0 gives a rate at or just above the market rate', () => {
    // 1/1500 down to 12 places = 0.000666666666; 1/that = 1500.0000015... -> up 1500.000002
    const { rate, inverseRate } = priceQuote(dec('1500'), 0);
    expect(inverseRate.toFixed()).toBe('0.000666666666');
    expect(rate.toFixed()).toBe('1500.000002');
    expect(rate.gte(1500)).toBe(true);
    expect(rate.minus(1500).lt('0.00001')).toBe(true);
  });

  it('with fee 0 on an exactly invertible market returns the market unchanged', () => {
    const { rate, inverseRate } = priceQuote(dec('1250'), 0);
    expect(inverseRate.toFixed()).toBe('0.0008');
    expect(rate.toFixed()).toBe('1250');
  });

  it('always reduces what the user receives and keeps rate x inverse just above 1 (seeded)', () => {
    const random = lcg(20260101);
    for (let i = 0; i < 2000; i += 1) {
      // market in [1, 5000] with 4 decimals, fee in [1, 9999]
      const market = dec(Math.floor(random() * 49_990_000) + 10_000).div(10_000);
      const fee = 1 + Math.floor(random() * 9999);
      const { rate, inverseRate } = priceQuote(market, fee);
      const marketInverse = dec(1).div(market);
      expect(inverseRate.lt(marketInverse)).toBe(true);
      expect(inverseRate.gt(0)).toBe(true);
      expect(rate.gt(market)).toBe(true);
      const product = rate.times(inverseRate);
      expect(product.gte(1)).toBe(true);
      // rate is at most 1e-6 above 1/inverse, so the product exceeds 1 by at most inverse x 1e-6
      expect(product.minus(1).lte(inverseRate.times('0.000001'))).toBe(true);
      expect(rate.decimalPlaces()).toBeLessThanOrEqual(6);
      expect(inverseRate.decimalPlaces()).toBeLessThanOrEqual(12);
    }
  });

  it('a larger fee never gives the user more', () => {
    const market = dec('1543.2109');
    let previous = priceQuote(market, 0).inverseRate;
    for (const fee of [1, 10, 50, 100, 1000, 5000, 9999]) {
      const { inverseRate } = priceQuote(market, fee);
      expect(inverseRate.lt(previous)).toBe(true);
      previous = inverseRate;
    }
  });

  it.each([['0'], ['-1'], ['-0.0001']])('rejects non-positive market %s', (market) => {
    expect(() => priceQuote(dec(market), 50)).toThrow(RangeError);
  });

  it('rejects a non-finite market', () => {
    expect(() => priceQuote(new Dec(NaN), 50)).toThrow(RangeError);
    expect(() => priceQuote(new Dec(Infinity), 50)).toThrow(RangeError);
  });

  it.each([[-1], [10000], [10001], [0.5], [49.9], [NaN]])('rejects fee_bps %p', (fee) => {
    expect(() => priceQuote(dec('1500'), fee)).toThrow(RangeError);
  });

  it('accepts the largest fee below 100%', () => {
    expect(() => priceQuote(dec('1500'), 9999)).not.toThrow();
  });
});

describe('parseRateQuery', () => {
  function codeOf(fn: () => unknown): ErrorCode | undefined {
    try {
      fn();
    } catch (error) {
      expect(error).toBeInstanceOf(DomainError);
      return (error as DomainError).code;
    }
    throw new Error('expected a DomainError');
  }

  it.each([[undefined], ['']])('from %p is a missing parameter', (from) => {
    expect(codeOf(() => parseRateQuery({ from, to: 'USDC' }))).toBe(ErrorCode.MissingParameter);
  });

  it.each([['USD'], ['ngn'], ['USDC']])('from %p is invalid', (from) => {
    expect(codeOf(() => parseRateQuery({ from, to: 'USDC' }))).toBe(ErrorCode.InvalidParameter);
  });

  it.each([[undefined], ['']])('to %p defaults to USDC', (to) => {
    expect(parseRateQuery({ from: 'NGN', to })).toEqual({ from: 'NGN', to: 'USDC' });
  });

  it.each([['USDC'], ['USDT'], ['USD']])('to %s is accepted', (to) => {
    expect(parseRateQuery({ from: 'NGN', to })).toEqual({ from: 'NGN', to });
  });

  it.each([['BTC'], ['usdc'], ['NGN']])('to %s is invalid', (to) => {
    expect(codeOf(() => parseRateQuery({ from: 'NGN', to }))).toBe(ErrorCode.InvalidParameter);
  });

  it('names the parameter in the message', () => {
    expect(() => parseRateQuery({ from: undefined, to: undefined })).toThrow(/from/);
    expect(() => parseRateQuery({ from: 'NGN', to: 'BTC' })).toThrow(/to/);
  });
});

describe('priceQuote on markets too large to quote', () => {
  it('refuses a market whose inverse rounds to zero instead of quoting Infinity', () => {
    expect(() => priceQuote(dec('2e12'), 0)).toThrow(RangeError);
    expect(() => priceQuote(dec('1e9'), 9999)).toThrow(RangeError);
  });
});
