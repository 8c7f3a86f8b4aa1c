/**
 * `npm run bench [-- name...] [-- --runs N]`: runs every benchmark (or the named ones) one
 * after another on this machine, N rounds (default 1; each round runs every chosen benchmark
 * once, so the runs of one benchmark are spread over the session), prints one table and writes
 * bench/results/latest.json: per figure the median, the spread and each run's figure, met only
 * when every run met it. See bench/README.md.
 */
import { cpus, totalmem } from 'node:os';
import { BENCHMARKS } from './benchmarks';
import { printCombinedTable, printTable, writeResults, type Row } from './lib/results';
import { combineRuns } from './lib/runs';

function parseArguments(argv: string[]): { names: string[]; runs: number } {
  const names: string[] = [];
  let runs = 1;
  for (let i = 0; i < argv.length; i += 1) {
    if (argv[i] === '--runs') {
      runs = Number(argv[++i]);
      if (!Number.isInteger(runs) || runs < 1 || runs > 20) {
        throw new Error(`--runs takes a whole number from 1 to 20, not "${argv[i]}"`);
      }
    } else names.push(argv[i]);
  }
  return { names, runs };
}

async function runOne(bench: (typeof BENCHMARKS)[number]): Promise<Row[]> {
  const t0 = Date.now();
  process.stdout.write(`\n== ${bench.name}: ${bench.description}\n`);
  try {
    const produced = await bench.run();
    printTable(produced);
    return produced;
  } catch (error) {
    process.stdout.write(`   failed: ${String((error as Error)?.stack ?? error)}\n`);
    return [
      {
        benchmark: bench.name,
        figure: 'run',
        unit: '',
        target: 0,
        better: 'lower',
        measured: Number.NaN,
        baseline: null,
        baselineIs: '',
        note: `failed: ${String((error as Error)?.message ?? error)}`,
      },
    ];
  } finally {
    process.stdout.write(`   (${Math.round((Date.now() - t0) / 1000)} s)\n`);
  }
}

async function main(): Promise<void> {
  const { names, runs } = parseArguments(process.argv.slice(2));
  const chosen = names.length ? BENCHMARKS.filter((b) => names.includes(b.name)) : BENCHMARKS;
  if (chosen.length === 0) {
    throw new Error(
      `no benchmark named ${names.join(', ')}; have ${BENCHMARKS.map((b) => b.name).join(', ')}`,
    );
  }
  const started = Date.now();
  const rounds: Row[][] = [];
  for (let round = 0; round < runs; round += 1) {
    if (runs > 1) process.stdout.write(`\n==== run ${round + 1} of ${runs}\n`);
    const rows: Row[] = [];
    for (const bench of chosen) rows.push(...(await runOne(bench)));
    rounds.push(rows);
  }
  const combined = combineRuns(rounds);
  process.stdout.write(`\n== All benchmarks${runs > 1 ? `, median of ${runs} runs` : ''}\n`);
  if (runs > 1) printCombinedTable(combined);
  else printTable(rounds[0]);
  const file = writeResults(combined, {
    finished_at: new Date().toISOString(),
    duration_seconds: Math.round((Date.now() - started) / 1000),
    runs,
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
