import {
  JITTER,
  MAX_ATTEMPTS,
  MAX_RETRIES,
  nextAttemptAt,
  plannedRetryOffsetMs,
} from '../../src/domain/webhook-schedule';

const first = new Date('2026-08-01T00:00:00Z');
const HOUR = 3_600_000;

/** The whole plan for one delivery that never succeeds, with a given random source. */
function plan(random: () => number): number[] {
  const offsets: number[] = [];
  for (let made = 1; ; made += 1) {
    const at = nextAttemptAt(first, made, first, random);
    if (!at) break;
    offsets.push(at.getTime() - first.getTime());
  }
  return offsets;
}

describe('webhook retry schedule', () => {
  it('plans exactly 10 retries: the first at 5 s, the last at 24 h, growing each time', () => {
    expect(MAX_RETRIES).toBe(10);
    expect(MAX_ATTEMPTS).toBe(11);
    expect(plannedRetryOffsetMs(1)).toBe(5_000);
    expect(plannedRetryOffsetMs(10)).toBe(24 * HOUR);
    const gaps = [];
    for (let k = 1; k <= 10; k += 1) {
      gaps.push(plannedRetryOffsetMs(k) - (k === 1 ? 0 : plannedRetryOffsetMs(k - 1)));
    }
    for (let k = 1; k < gaps.length; k += 1) {
      // Exponential: each gap the same multiple (about 2.8) of the one before.
      expect(gaps[k] / gaps[k - 1]).toBeCloseTo(gaps[1] / gaps[0], 3);
      expect(gaps[k] / gaps[k - 1]).toBeGreaterThan(2);
    }
    expect(() => plannedRetryOffsetMs(0)).toThrow(RangeError);
    expect(() => plannedRetryOffsetMs(11)).toThrow(RangeError);
  });

  it('gives up after the 11th attempt', () => {
    expect(plan(() => 0.5)).toHaveLength(10);
    expect(nextAttemptAt(first, 11, first, () => 0.5)).toBeNull();
  });

  it('jitters each retry within ±10% of its gap, staying ordered and near 24 h at the end', () => {
    const low = plan(() => 0);
    const middle = plan(() => 0.5);
    const high = plan(() => 0.999999);
    for (let k = 1; k <= 10; k += 1) {
      const previous = k === 1 ? 0 : plannedRetryOffsetMs(k - 1);
      const gap = plannedRetryOffsetMs(k) - previous;
      expect(middle[k - 1]).toBe(plannedRetryOffsetMs(k));
      expect(low[k - 1]).toBe(previous + Math.round(gap * (1 - JITTER)));
      expect(Math.abs(high[k - 1] - (previous + gap * (1 + JITTER)))).toBeLessThan(100);
    }
    for (const offsets of [low, high]) {
      for (let i = 1; i < offsets.length; i += 1)
        expect(offsets[i]).toBeGreaterThan(offsets[i - 1]);
    }
    expect(low[0]).toBe(4_500);
    expect(high[0]).toBe(5_500);
    expect(low[9]).toBeGreaterThan(22 * HOUR);
    expect(high[9]).toBeLessThan(26 * HOUR);
  });

  it('never plans a retry before the attempt that failed has ended', () => {
    const late = new Date(first.getTime() + 15_000); // the first attempt timed out after 15 s
    expect(nextAttemptAt(first, 1, late, () => 0.5)).toEqual(late);
    expect(nextAttemptAt(first, 2, late, () => 0.5)!.getTime()).toBe(
      first.getTime() + plannedRetryOffsetMs(2),
    );
  });
});
