import { loadavg } from 'node:os';
import type { samplePayouts } from './payout-sampler';
import { percentile, round } from './stats';

/** The phase's queues over time, the sessions' waits and the stage breakdown, to stdout. */
export function reportPhase(
  prefix: string,
  rate: number,
  sampled: Awaited<ReturnType<Awaited<ReturnType<typeof samplePayouts>>['stop']>>,
  stages: string[],
): void {
  // Other work on the machine moves these figures a lot: its 1-minute load average, at the end.
  const load = loadavg()[0].toFixed(1);
  const out = [
    `   -- ${prefix} (${rate}/s): where each deposit's time went (load average ${load})`,
    ...stages,
  ];
  for (const [job, ms] of Object.entries(sampled.jobsMs).sort()) {
    out.push(
      `  ${job} jobs: ${ms.length} ran, p50 ${round(percentile(ms, 50))} ms, p99 ` +
        `${round(percentile(ms, 99))} ms, max ${round(Math.max(...ms))} ms`,
    );
  }
  out.push('  queues over time (from load start):', ...sampled.timeline.map((l) => `    ${l}`));
  out.push(`  database sessions not idle, per sample (${sampled.samples} samples):`);
  for (const [what, n] of sampled.activity.slice(0, 15))
    out.push(`    ${String(n).padStart(6)}  ${what}`);
  process.stdout.write(`${out.join('\n')}\n`);
}
