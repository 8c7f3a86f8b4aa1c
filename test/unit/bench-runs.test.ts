import { combineRuns, median } from '../../bench/lib/runs';
import { ratioOf, type Row } from '../../bench/lib/results';

const row = (figure: string, measured: number, extra: Partial<Row> = {}): Row => ({
  benchmark: 'settle-balance',
  figure,
  unit: 'ms',
  target: 1000,
  better: 'lower',
  measured,
  baseline: 100,
  baselineIs: 'at 5/s',
  ...extra,
});

describe('benchmark figures over several runs', () => {
  it('takes the median of odd and even counts, ignoring runs without a figure', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([Number.NaN, 5])).toBe(5);
    expect(median([])).toBeNaN();
  });

  it('reports the median and spread, and meets a target only when every run met it', () => {
    const [p99, p50] = combineRuns([
      [row('p99', 900), row('p50', 300)],
      [row('p99', 1100, { baseline: 120 }), row('p50', 310)],
      [row('p99', 950, { note: 'noisy' }), row('p50', 305)],
    ]);
    expect(p99).toMatchObject({
      figure: 'p99',
      measured: 950,
      runs: [900, 1100, 950],
      spread: { min: 900, max: 1100 },
      baseline: 100,
      baselines: [100, 120, 100],
      metInRuns: 2,
      metInEveryRun: false,
      note: 'run 3: noisy',
    });
    expect(p50).toMatchObject({ measured: 305, metInRuns: 3, metInEveryRun: true });
  });

  it('counts a figure missing from a run (the run failed) as missed', () => {
    const [throughput] = combineRuns([
      [row('accepted', 200, { better: 'higher', target: 199 })],
      [],
      [row('accepted', 201, { better: 'higher', target: 199 })],
    ]);
    expect(throughput).toMatchObject({ measured: 200.5, metInRuns: 2, metInEveryRun: false });
    expect(Number.isNaN(throughput.runs[1])).toBe(true);
  });
});

describe('a figure beside its baseline', () => {
  it('is divided by it, unless both sit near 0 and the row says so', () => {
    expect(ratioOf(row('p99', 150))).toBe(1.5);
    expect(ratioOf(row('growth', 0.05, { baseline: 0.01, noRatio: true }))).toBeNull();
    expect(ratioOf(row('p99', 150, { baseline: null }))).toBeNull();
  });
});
