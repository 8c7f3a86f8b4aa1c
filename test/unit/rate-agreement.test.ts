import { dec } from '../../src/domain/money';
import {
  agreeOnPrice,
  median,
  type AgreementRule,
  type PriceObservation,
} from '../../src/domain/rate-agreement';

const NOW = new Date('2026-03-01T12:00:00Z');
const RULE: AgreementRule = { minSources: 2, maxSpreadBps: 150, maxAgeSeconds: 300 };
const secondsAgo = (s: number) => new Date(NOW.getTime() - s * 1000);
const price = (source: string, value: string, observedAt?: Date): PriceObservation => ({
  source,
  price: dec(value),
  ...(observedAt ? { observedAt } : {}),
});
const down = (source: string): PriceObservation => ({ source, problem: 'answered 503' });

describe('agreeOnPrice', () => {
  it('one source down and another 5% off: the median of the two that agree', () => {
    const outcome = agreeOnPrice(
      [
        down('quidax'),
        price('luno', '1575.2625'), // 5% above 1500.25
        price('coinbase', '1500.25'),
        price('coingecko', '1501.75'),
      ],
      RULE,
      NOW,
    );
    expect(outcome).toEqual({
      agreed: true,
      price: dec('1501'),
      used: ['coinbase', 'coingecko'],
      excluded: [
        { source: 'quidax', reason: 'answered 503' },
        { source: 'luno', reason: expect.stringContaining('more than 150 bps from the median') },
      ],
    });
    expect(outcome.agreed && outcome.price.toFixed()).toBe('1501');
  });

  it('an odd count of agreeing prices publishes the middle one exactly', () => {
    const outcome = agreeOnPrice(
      [price('a', '1500.1234'), price('b', '1503.5'), price('c', '1499.0001')],
      RULE,
      NOW,
    );
    expect(outcome.agreed && outcome.price.toFixed()).toBe('1500.1234');
  });

  it('two down of three: unavailable, even though the one left is fine', () => {
    const outcome = agreeOnPrice([down('a'), down('b'), price('c', '1500')], RULE, NOW);
    expect(outcome).toMatchObject({
      agreed: false,
      reason: '1 agreeing fresh price(s), at least 2 needed',
      used: ['c'],
    });
  });

  it('all down: unavailable', () => {
    const outcome = agreeOnPrice([down('a'), down('b')], RULE, NOW);
    expect(outcome).toMatchObject({ agreed: false, reason: 'no fresh price', used: [] });
  });

  it('spread too wide: each price more than 150 bps from the median leaves too few', () => {
    // Median 1530; 1500 and 1560 are 196 bps away, so only 1530 agrees.
    const outcome = agreeOnPrice(
      [price('a', '1500'), price('b', '1530'), price('c', '1560')],
      RULE,
      NOW,
    );
    expect(outcome).toMatchObject({ agreed: false, used: ['b'] });
  });

  it('two prices exactly 150 bps from their median agree; one more unit does not', () => {
    // Median 10000: 9850 and 10150 are each exactly 150 bps away.
    const edge = agreeOnPrice([price('a', '9850'), price('b', '10150')], RULE, NOW);
    expect(edge.agreed && edge.price.toFixed()).toBe('10000');
    // Median 10000.5: 9850 is 150.5... bps away.
    const over = agreeOnPrice([price('a', '9850'), price('b', '10151')], RULE, NOW);
    expect(over.agreed).toBe(false);
  });

  it('a stale price is excluded by its own timestamp, the rest still publish', () => {
    const outcome = agreeOnPrice(
      [
        price('a', '1400', secondsAgo(301)),
        price('b', '1500', secondsAgo(300)),
        price('c', '1502'),
      ],
      RULE,
      NOW,
    );
    expect(outcome).toMatchObject({
      agreed: true,
      used: ['b', 'c'],
      excluded: [{ source: 'a', reason: 'stale: 301 s old, at most 300 s' }],
    });
    expect(outcome.agreed && outcome.price.toFixed()).toBe('1501');
  });

  it('stale prices do not count toward the minimum', () => {
    const outcome = agreeOnPrice(
      [price('a', '1500', secondsAgo(900)), price('b', '1500', secondsAgo(10))],
      RULE,
      NOW,
    );
    expect(outcome).toMatchObject({ agreed: false, used: ['b'] });
  });

  it('a timestamp more than a minute in the future is not believed', () => {
    const outcome = agreeOnPrice(
      [price('a', '1500', new Date(NOW.getTime() + 61_000)), price('b', '1500')],
      RULE,
      NOW,
    );
    expect(outcome).toMatchObject({
      agreed: false,
      excluded: [{ source: 'a', reason: 'timestamp 61 s in the future' }],
    });
  });

  it('a zero or negative price is never fresh', () => {
    const outcome = agreeOnPrice(
      [price('a', '0'), price('b', '-1500'), price('c', '1500'), price('d', '1500')],
      RULE,
      NOW,
    );
    expect(outcome).toMatchObject({ agreed: true, used: ['c', 'd'] });
  });

  it('rounds the median half-even to 6 decimals', () => {
    const outcome = agreeOnPrice(
      [price('a', '1500.0000001'), price('b', '1500.0000009')],
      RULE,
      NOW,
    );
    // mean 1500.0000005: exactly half a unit of the 6th decimal; half-even keeps the even 0
    expect(outcome.agreed && outcome.price.toFixed()).toBe('1500');
    const up = agreeOnPrice([price('a', '1500.0000011'), price('b', '1500.0000019')], RULE, NOW);
    // mean 1500.0000015 -> the even neighbour 1500.000002
    expect(up.agreed && up.price.toFixed()).toBe('1500.000002');
  });

  it('MIN of 1 publishes a single fresh price', () => {
    const outcome = agreeOnPrice(
      [down('a'), price('b', '1499.5')],
      { ...RULE, minSources: 1 },
      NOW,
    );
    expect(outcome.agreed && outcome.price.toFixed()).toBe('1499.5');
  });
});

describe('median', () => {
  it('takes the middle of an odd count and the exact mean of an even one', () => {
    expect(median([dec('3'), dec('1'), dec('2')]).toFixed()).toBe('2');
    expect(median([dec('1500.25'), dec('1501.75'), dec('1400'), dec('1600')]).toFixed()).toBe(
      '1501',
    );
    expect(median([dec('1'), dec('2')]).toFixed()).toBe('1.5');
  });

  it('refuses an empty list', () => {
    expect(() => median([])).toThrow(RangeError);
  });
});
