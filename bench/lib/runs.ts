import { meets, type Row } from './results';

/**
 * One figure over several runs of the same benchmark (`npm run bench -- --runs 3`): the median
 * stands for the figure, the spread (lowest and highest) says how far to trust it, and the
 * figure is met only when every run met it (a target met once in three is not met).
 */
export interface CombinedRow extends Row {
  runs: number[];
  /** The baseline of each run (measured beside it), null where a run had none. */
  baselines: Array<number | null>;
  spread: { min: number; max: number };
  metInEveryRun: boolean;
  metInRuns: number;
}

/** The median of numbers (the mean of the middle two for an even count); NaN for none. */
export function median(values: readonly number[]): number {
  const finite = values.filter(Number.isFinite).sort((a, b) => a - b);
  if (finite.length === 0) return Number.NaN;
  const middle = Math.floor(finite.length / 2);
  return finite.length % 2 ? finite[middle] : (finite[middle - 1] + finite[middle]) / 2;
}

/**
 * Rows of every run, combined by benchmark and figure, in the order the first run printed
 * them (a figure a run did not produce, e.g. because it failed, counts as a missed run).
 */
export function combineRuns(runs: readonly (readonly Row[])[]): CombinedRow[] {
  const order: string[] = [];
  const byFigure = new Map<string, Array<Row | undefined>>();
  runs.forEach((rows, run) => {
    for (const row of rows) {
      const key = `${row.benchmark}\u0000${row.figure}`;
      if (!byFigure.has(key)) {
        order.push(key);
        byFigure.set(
          key,
          Array.from({ length: runs.length }, () => undefined),
        );
      }
      byFigure.get(key)![run] = row;
    }
  });
  return order.map((key) => {
    const perRun = byFigure.get(key)!;
    const first = perRun.find((r): r is Row => r !== undefined)!;
    const measured = perRun.map((r) => r?.measured ?? Number.NaN);
    const baselines = perRun.map((r) => r?.baseline ?? null);
    const finite = measured.filter(Number.isFinite);
    const knownBaselines = baselines.filter((b): b is number => b !== null && Number.isFinite(b));
    const metInRuns = perRun.filter((r) => r !== undefined && meets(r)).length;
    return {
      ...first,
      measured: median(measured),
      baseline: knownBaselines.length ? median(knownBaselines) : null,
      note: perRun
        .map((r, i) => (r?.note ? `run ${i + 1}: ${r.note}` : undefined))
        .filter(Boolean)
        .join(' | '),
      runs: measured,
      baselines,
      spread: finite.length
        ? { min: Math.min(...finite), max: Math.max(...finite) }
        : { min: Number.NaN, max: Number.NaN },
      metInEveryRun: metInRuns === runs.length,
      metInRuns,
    };
  });
}
