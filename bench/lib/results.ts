import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CombinedRow } from './runs';

/**
 * One line of the table. `better` says which way is good: for `lower` (latency, memory) the
 * target is a ceiling, for `higher` (throughput) a floor. `ratio` is measured / baseline.
 */
export interface Row {
  benchmark: string;
  figure: string;
  unit: string;
  target: number;
  better: 'lower' | 'higher';
  measured: number;
  /** What the same work costs without the service in the way, measured in the same run. */
  baseline: number | null;
  baselineIs: string;
  /**
   * The baseline is read beside the figure, not divided into it: both sit near 0 (a queue's
   * growth), where a ratio says nothing.
   */
  noRatio?: boolean;
  note?: string;
}

export const meets = (row: Row): boolean =>
  Number.isFinite(row.measured) &&
  (row.better === 'lower' ? row.measured <= row.target : row.measured >= row.target);

export const ratioOf = (row: Row): number | null =>
  !row.noRatio && row.baseline && Number.isFinite(row.baseline) && Number.isFinite(row.measured)
    ? Math.round((row.measured / row.baseline) * 100) / 100
    : null;

export function printTable(rows: readonly Row[]): void {
  const header = ['figure', 'target', 'measured', 'baseline', 'ratio', 'ok'];
  const lines = rows.map((r) => [
    `${r.benchmark}: ${r.figure}`,
    `${r.better === 'lower' ? '<=' : '>='} ${r.target} ${r.unit}`,
    `${r.measured} ${r.unit}`,
    r.baseline === null ? '-' : `${r.baseline} ${r.unit} (${r.baselineIs})`,
    String(ratioOf(r) ?? '-'),
    meets(r) ? 'yes' : 'NO',
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(`\n${format(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
  for (const r of rows.filter((row) => row.note)) {
    process.stdout.write(`  * ${r.benchmark}: ${r.figure}: ${r.note}\n`);
  }
}

/** The table of several runs: median, spread, and in how many runs the target was met. */
export function printCombinedTable(rows: readonly CombinedRow[]): void {
  const header = ['figure', 'target', 'median', 'spread', 'baseline (median)', 'ratio', 'met'];
  const lines = rows.map((r) => [
    `${r.benchmark}: ${r.figure}`,
    `${r.better === 'lower' ? '<=' : '>='} ${r.target} ${r.unit}`,
    `${r.measured} ${r.unit}`,
    `${r.spread.min}-${r.spread.max}`,
    r.baseline === null ? '-' : `${r.baseline} ${r.unit} (${r.baselineIs})`,
    String(ratioOf(r) ?? '-'),
    `${r.metInEveryRun ? 'yes' : 'NO'} (${r.metInRuns}/${r.runs.length})`,
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => l[i].length)));
  const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ');
  process.stdout.write(`\n${format(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}\n`);
  for (const line of lines) process.stdout.write(`${format(line)}\n`);
  for (const r of rows.filter((row) => row.note)) {
    process.stdout.write(`  * ${r.benchmark}: ${r.figure}: ${r.note}\n`);
  }
}

/**
 * latest.json: every figure's median (`measured`), spread and runs; `meets_target` only when
 * every run met it.
 */
export function writeResults(rows: readonly CombinedRow[], meta: Record<string, unknown>): string {
  const dir = join(__dirname, '..', '..', '..', 'bench', 'results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'latest.json');
  writeFileSync(
    file,
    `${JSON.stringify(
      {
        ...meta,
        rows: rows.map((r) => ({ ...r, ratio: ratioOf(r), meets_target: r.metInEveryRun })),
      },
      null,
      2,
    )}\n`,
  );
  return file;
}
