import { readdirSync, readFileSync } from 'node:fs';

/** Fields of /proc/<pid>/stat after the command name: [ppid, ..., utime, stime] (Linux). */
function statFields(pid: number): string[] | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/**
 * CPU time (user + system) a process has used so far, in ms; 0 once it is gone. With
 * `reaped`, also that of its children that have exited (a closed connection's backend).
 */
export function cpuMs(pid: number, reaped = false): number {
  const f = statFields(pid);
  if (!f) return 0;
  // utime, stime, cutime, cstime: fields 14 to 17 of stat, in ticks (100 a second on Linux).
  const ticks = Number(f[11]) + Number(f[12]) + (reaped ? Number(f[13]) + Number(f[14]) : 0);
  return ticks * 10;
}

/** CPU time of a process and every process below it (PostgreSQL's server and backends). */
export function treeCpuMs(root: number): number {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    const pid = Number(name);
    if (!Number.isInteger(pid)) continue;
    const f = statFields(pid);
    if (!f) continue;
    const ppid = Number(f[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  }
  let total = 0;
  const stack = [root];
  while (stack.length > 0) {
    const pid = stack.pop()!;
    total += cpuMs(pid, true);
    stack.push(...(children.get(pid) ?? []));
  }
  return total;
}
