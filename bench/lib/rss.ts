import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Resident memory of a process in MB, from /proc (Linux), or NaN when it is gone. */
export function residentMb(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) / 1024 : Number.NaN;
  } catch {
    return Number.NaN;
  }
}

/** Samples processes' resident memory every `everyMs` until stopped; returns each one's peak. */
export function sampleResident(pids: Record<string, number>, everyMs = 250) {
  const peaks: Record<string, number> = Object.fromEntries(Object.keys(pids).map((k) => [k, 0]));
  const timer = setInterval(() => {
    for (const [name, pid] of Object.entries(pids)) {
      const mb = residentMb(pid);
      if (Number.isFinite(mb)) peaks[name] = Math.max(peaks[name], mb);
    }
  }, everyMs);
  return {
    stop(): Record<string, number> {
      clearInterval(timer);
      return peaks;
    },
  };
}

/** The floor: a bare Node.js process with an HTTP server listening, nothing else loaded. */
export async function bareNodeResidentMb(): Promise<number> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      "require('http').createServer((q, s) => s.end('ok')).listen(0, () => console.log('up'))",
    ],
    { stdio: ['ignore', 'pipe', 'ignore'] },
  );
  await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
  await new Promise((r) => setTimeout(r, 500));
  const mb = residentMb(child.pid!);
  child.kill();
  return mb;
}
