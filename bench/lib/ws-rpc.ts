import { fork, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

/** A forked helper process answering `{id, command}` with `{id, result}` or `{id, error}`. */
export interface RpcChild {
  child: ChildProcess;
  call<T>(command: { type: string } & Record<string, unknown>): Promise<T>;
  stop(): Promise<void>;
}

export function forkRpc(script: string, execArgv: string[] = []): RpcChild {
  const child = fork(script, [], { stdio: 'inherit', execArgv });
  let nextId = 0;
  const waiting = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  child.on('message', (message: { id: number; result?: unknown; error?: string }) => {
    const w = waiting.get(message.id);
    if (!w) return;
    waiting.delete(message.id);
    if (message.error !== undefined) w.reject(new Error(message.error));
    else w.resolve(message.result);
  });
  child.once('exit', (code) => {
    for (const w of waiting.values()) w.reject(new Error(`${script} exited with ${code}`));
    waiting.clear();
  });
  return {
    child,
    call: <T>(command: { type: string } & Record<string, unknown>) =>
      new Promise<T>((resolve, reject) => {
        nextId += 1;
        waiting.set(nextId, { resolve: resolve as (v: unknown) => void, reject });
        child.send({ id: nextId, command });
      }),
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}

/**
 * CPU time (user + system, ms) a process has used so far, from /proc (Linux); NaN elsewhere.
 * The difference over a window is what that process cost the machine meanwhile.
 */
export function cpuMs(pid: number | undefined): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command (which may hold spaces): state is field 3, utime 14, stime 15.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10; // USER_HZ is 100 on Linux
  } catch {
    return Number.NaN;
  }
}

/** The machine's busy and total CPU time so far (ms, all cores), from /proc/stat (Linux). */
export function machineCpuMs(): { busy: number; total: number } {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0];
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((a, b) => a + b, 0);
    const idle = ticks[3] + (ticks[4] ?? 0); // idle + iowait
    return { busy: (total - idle) * 10, total: total * 10 };
  } catch {
    return { busy: Number.NaN, total: Number.NaN };
  }
}

/**
 * CPU time (ms) of the PostgreSQL server listening on `port`: its postmaster, its live
 * backends and workers, and the children it has reaped. The difference over a window is what
 * the database cost meanwhile (Linux; NaN elsewhere).
 */
export function postgresCpuMs(port: number): number {
  try {
    const stats = new Map<number, string[]>();
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        stats.set(Number(entry), stat.slice(stat.lastIndexOf(')') + 2).split(' '));
      } catch {
        // gone meanwhile
      }
    }
    let postmaster: number | undefined;
    for (const pid of stats.keys()) {
      try {
        const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
        if (cmdline[0].endsWith('/postgres') && cmdline.includes(String(port))) postmaster = pid;
      } catch {
        // gone meanwhile
      }
    }
    if (postmaster === undefined) return Number.NaN;
    const own = stats.get(postmaster)!;
    // utime, stime, cutime, cstime are fields 14-17; after the command, indices 11-14.
    let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
    for (const fields of stats.values()) {
      if (Number(fields[1]) === postmaster) ticks += Number(fields[11]) + Number(fields[12]);
    }
    return ticks * 10;
  } catch {
    return Number.NaN;
  }
}

/**
 * How busy the machine is without us (0..1 of all cores), over `ms`: taken before a benchmark
 * starts its processes, so a noisy neighbour shows in the notes.
 */
export async function backgroundLoad(ms = 1000): Promise<number> {
  const before = machineCpuMs();
  await new Promise((r) => setTimeout(r, ms));
  const after = machineCpuMs();
  return (after.busy - before.busy) / (after.total - before.total);
}
