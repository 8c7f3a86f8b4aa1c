/**
 * `npm run bench [-- name...]`: runs every benchmark (or the named ones) one after another on
 * this machine, prints one table and writes bench/results/latest.json. See bench/README.md.
 */
import { cpus, totalmem } from 'node:os';
import { BENCHMARKS } from './benchmarks';
import { printTable, writeResults, type Row } from './lib/results';

async function main(): Promise<void> {
  const wanted = process.argv.slice(2);
  const chosen = wanted.length ? BENCHMARKS.filter((b) => wanted.includes(b.name)) : BENCHMARKS;
  if (chosen.length === 0) {
    throw new Error(
      `no benchmark named ${wanted.join(', ')}; have ${BENCHMARKS.map((b) => b.name).join(', ')}`,
    );
  }
  const started = Date.now();
  const rows: Row[] = [];
  for (const bench of chosen) {
    const t0 = Date.now();
    process.stdout.write(`\n== ${bench.name}: ${bench.description}\n`);
    try {
      const produced = await bench.run();
      rows.push(...produced);
      printTable(produced);
    } catch (error) {
      process.stdout.write(`   failed: ${String((error as Error)?.stack ?? error)}\n`);
      rows.push({
        benchmark: bench.name,
        figure: 'run',
        unit: '',
        target: 0,
        better: 'lower',
        measured: Number.NaN,
        baseline: null,
        baselineIs: '',
        note: `failed: ${String((error as Error)?.message ?? error)}`,
      });
    }
    process.stdout.write(`   (${Math.round((Date.now() - t0) / 1000)} s)\n`);
  }
  process.stdout.write('\n== All benchmarks\n');
  printTable(rows);
  const file = writeResults(rows, {
    finished_at: new Date().toISOString(),
    duration_seconds: Math.round((Date.now() - started) / 1000),
    machine: { cpus: cpus().length, cpu_model: cpus()[0]?.model, memory_bytes: totalmem() },
    node: process.version,
  });
  process.stdout.write(`\nWritten to ${file} (${Math.round((Date.now() - started) / 1000)} s)\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
    process.exit(1);
  },
);
