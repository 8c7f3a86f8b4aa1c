/**
 * Load on several targets of one machine, in slices interleaved round by round (the order
 * rotating each round), each target's slices pooled: a disturbance of the shared machine hits
 * every target alike instead of whichever ran at that moment. Beside latency and throughput,
 * each slice records where the machine's CPU went while it ran (the answering process,
 * PostgreSQL, the job runner, the load generators), since on a 2-core machine those processes
 * compete for the same cores and the throughput follows their sum.
 */
import { cpuMs, treeCpuMs } from './cpu';
import { runLoad, type RequestTemplate } from './load';

export interface Target {
  label: string;
  baseUrl: string;
  /** The process answering (a gateway, or the bare handler). */
  pid: number;
  requests: RequestTemplate[];
  /** Is this response body the expected one? (Statuses are counted apart.) */
  good(body: string): boolean;
}

type CpuPart = 'server' | 'postgres' | 'runner' | 'load';

/** One target's slices of one phase, pooled. */
export interface Pooled {
  latenciesMs: number[];
  requests: number;
  elapsedMs: number;
  /** Throughput of each slice (req/s), in round order. */
  slices: number[];
  problems: string[];
  /** CPU time spent during this target's slices, in ms, by process. */
  cpu: Record<CpuPart, number>;
}

/** The processes besides the answering one whose CPU a slice records. */
export interface CpuProbe {
  postgresPid: number;
  runnerPid: number;
}

export interface SliceOptions {
  rounds: number;
  sliceMs: number;
  /** Sockets in flight (closed loop), or at most (open loop). */
  concurrency: number;
  workers: number;
  /** Open loop at this many requests a second; absent: closed loop. */
  rate?: number;
}

type LoadResult = Awaited<ReturnType<typeof runLoad>>;

function cpuNow(probe: CpuProbe, serverPid: number): Omit<Record<CpuPart, number>, 'load'> {
  return {
    server: cpuMs(serverPid),
    postgres: treeCpuMs(probe.postgresPid),
    runner: cpuMs(probe.runnerPid),
  };
}

/** Statuses other than 200, transport errors, skipped sends and wrong bodies, as text. */
function problemsOf(target: Target, result: LoadResult): string[] {
  const out: string[] = [];
  const bad = Object.entries(result.statuses).filter(([s]) => s !== '200');
  if (bad.length) out.push(`statuses ${bad.map(([s, n]) => `${s} x${n}`).join(', ')}`);
  if (result.errors) out.push(`${result.errors} transport errors`);
  if (result.skipped) out.push(`${result.skipped} sends skipped (all sockets busy)`);
  const wrong = result.bodies.filter((b) => !target.good(b)).length;
  if (wrong) out.push(`${wrong} of ${result.bodies.length} bodies not the expected answer`);
  return out;
}

/** `options.rounds` rounds of one slice per target, pooled per target. */
export async function interleaved<K extends string>(
  all: Record<K, Target>,
  probe: CpuProbe,
  phase: string,
  options: SliceOptions,
): Promise<Record<K, Pooled>> {
  const names = Object.keys(all) as K[];
  const pooled = {} as Record<K, Pooled>;
  for (const name of names) {
    pooled[name] = {
      latenciesMs: [],
      requests: 0,
      elapsedMs: 0,
      slices: [],
      problems: [],
      cpu: { server: 0, postgres: 0, runner: 0, load: 0 },
    };
  }
  for (let r = 0; r < options.rounds; r += 1) {
    for (let i = 0; i < names.length; i += 1) {
      const name = names[(r + i) % names.length];
      const target = all[name];
      const before = cpuNow(probe, target.pid);
      const result = await runLoad(
        {
          baseUrl: target.baseUrl,
          requests: target.requests,
          durationMs: options.sliceMs,
          concurrency: options.concurrency,
          rate: options.rate,
        },
        options.workers,
      );
      const after = cpuNow(probe, target.pid);
      const p = pooled[name];
      for (const part of ['server', 'postgres', 'runner'] as const) {
        p.cpu[part] += after[part] - before[part];
      }
      p.cpu.load += result.cpuMs;
      for (const latency of result.latenciesMs) p.latenciesMs.push(latency);
      p.requests += result.latenciesMs.length;
      p.elapsedMs += result.elapsedMs;
      p.slices.push(Math.round(result.throughput));
      p.problems.push(...problemsOf(target, result).map((text) => `${phase}: ${text}`));
    }
  }
  return pooled;
}

export const throughputOf = (p: Pooled): number => (p.requests / p.elapsedMs) * 1000;

/**
 * CPU per answered request by process, in microseconds. The answering process, PostgreSQL and
 * the runner are read from /proc (10 ms ticks) around the whole slice, the load generators
 * from their own count over their run.
 */
export function cpuPerRequest(p: Pooled): string {
  const us = (ms: number) => Math.round((ms * 1000) / p.requests);
  const { server, postgres, runner, load } = p.cpu;
  return (
    `server ${us(server)}, PostgreSQL ${us(postgres)}, runner ${us(runner)}, load ${us(load)}; ` +
    `total ${us(server + postgres + runner + load)}`
  );
}
