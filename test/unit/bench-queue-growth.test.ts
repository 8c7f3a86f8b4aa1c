import type { DepositTiming } from '../../bench/lib/deposits-db';
import { backlogOverTime, growthPerSecond, queueGrowth } from '../../bench/lib/queue-growth';

const T0 = Date.UTC(2026, 10, 29, 5, 0, 0);

/**
 * `rate` arrivals a second for `seconds`, settled in batches at each whole second (a 1 s block)
 * after waiting at least `waitMs`; the first `unsettled` of every 100 are never settled.
 */
function arrivals(rate: number, seconds: number, waitMs: number, unsettled = 0): DepositTiming[] {
  const timings: DepositTiming[] = [];
  for (let i = 0; i < rate * seconds; i += 1) {
    const createdMs = T0 + Math.floor((i * 1000) / rate);
    const readyMs = createdMs + waitMs;
    const blockMs = Math.ceil((readyMs - T0) / 1000) * 1000 + T0;
    const never = i % 100 < unsettled;
    timings.push({
      status: never ? 'PAYOUT_PENDING' : 'SETTLED',
      createdMs,
      latencyMs: never ? null : blockMs - createdMs,
    });
  }
  return timings;
}

describe('benchmark queue growth', () => {
  it('counts what arrived and was not yet settled at each sample', () => {
    const timings: DepositTiming[] = [
      { status: 'SETTLED', createdMs: T0, latencyMs: 250 },
      { status: 'SETTLED', createdMs: T0 + 100, latencyMs: 50 },
      { status: 'PAYOUT_PENDING', createdMs: T0 + 200, latencyMs: null },
    ];
    expect(backlogOverTime(timings, T0, T0 + 400, 100).map((p) => p.backlog)).toEqual([1, 2, 2, 1]);
  });

  it('finds no growth in a pipeline that keeps up, whatever its level and block rhythm', () => {
    const growth = queueGrowth(arrivals(50, 30, 900), 30_000, {
      fillMs: 5_000,
      stepMs: 100,
      windowMs: 10_000,
    });
    expect(Math.abs(growth.perSecond)).toBeLessThan(0.2);
    expect(growth.firstMean).toBe(growth.lastMean);
    expect(growth.firstMean).toBeGreaterThan(40);
  });

  it('finds the share of arrivals left behind, per second', () => {
    // 4 of every 100 never settle: the queue gains 4 % of 50/s, 2 a second.
    const growth = queueGrowth(arrivals(50, 30, 900, 4), 30_000, {
      fillMs: 5_000,
      stepMs: 100,
      windowMs: 10_000,
    });
    expect(growth.perSecond).toBeGreaterThan(1.8);
    expect(growth.perSecond).toBeLessThan(2.2);
    expect(growth.lastMean).toBeGreaterThan(growth.firstMean + 25);
  });

  it('has no slope without two samples', () => {
    expect(growthPerSecond([{ atMs: T0, backlog: 3 }])).toBeNaN();
  });
});
