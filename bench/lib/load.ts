import { fork } from 'node:child_process';
import { join } from 'node:path';
import type { LoadResult, LoadSpec } from './load-worker';

export type { RequestTemplate } from './load-worker';

/** Runs `workers` load generator processes at once, each with its share of rate and sockets. */
export async function runLoad(
  spec: Omit<LoadSpec, 'worker'>,
  workers = 1,
): Promise<LoadResult & { throughput: number }> {
  const results = await Promise.all(
    Array.from({ length: workers }, (_, worker) => {
      const child = fork(join(__dirname, 'load-worker.js'), [], { stdio: 'inherit' });
      return new Promise<LoadResult>((resolve, reject) => {
        child.once('message', (result) => resolve(result as LoadResult));
        child.once('exit', (code) => {
          if (code !== 0) reject(new Error(`load worker exited with ${code}`));
        });
        child.send({
          ...spec,
          worker: worker + 1,
          rate: spec.rate ? spec.rate / workers : undefined,
          concurrency: Math.max(1, Math.ceil(spec.concurrency / workers)),
        } satisfies LoadSpec);
      });
    }),
  );
  const merged: LoadResult = {
    latenciesMs: results.flatMap((r) => r.latenciesMs),
    statuses: {},
    errors: results.reduce((s, r) => s + r.errors, 0),
    skipped: results.reduce((s, r) => s + r.skipped, 0),
    elapsedMs: Math.max(...results.map((r) => r.elapsedMs)),
    bodies: results.flatMap((r) => r.bodies),
    cpuMs: results.reduce((s, r) => s + r.cpuMs, 0),
  };
  for (const r of results) {
    for (const [status, count] of Object.entries(r.statuses)) {
      merged.statuses[status] = (merged.statuses[status] ?? 0) + count;
    }
  }
  return { ...merged, throughput: (merged.latenciesMs.length / merged.elapsedMs) * 1000 };
}
