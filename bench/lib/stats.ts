/** Nearest-rank percentile of an unsorted sample (milliseconds or any unit). */
export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank];
}

export function summary(values: readonly number[]) {
  return {
    count: values.length,
    p50: percentile(values, 50),
    p99: percentile(values, 99),
    max: values.length ? Math.max(...values) : Number.NaN,
  };
}

export const round = (value: number, places = 1): number =>
  Number.isFinite(value) ? Math.round(value * 10 ** places) / 10 ** places : value;
