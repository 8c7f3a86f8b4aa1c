import { freePort } from './free-port';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const ROOT = join(__dirname, '..', '..');
/** The built processes (jest's global setup builds dist/). */
export const PROCESS_SCRIPTS = {
  gateway: join(ROOT, 'dist', 'src', 'gateway.js'),
  runner: join(ROOT, 'dist', 'jobs', 'runner.js'),
};

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end (it must end by itself within `timeoutMs`). */
export function runToExit(
  script: string,
  env: NodeJS.ProcessEnv,
  timeoutMs = 30_000,
  args: string[] = [],
): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script, ...args], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not exit: ${stdout}${stderr}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // 'exit' can come before the pipes are drained.
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  });
}

export interface Probing {
  child: ChildProcess;
  /** The probe listener's URL (the gateway's API port, or the runner's JOBS_PORT). */
  url: string;
  logs: string[];
  /** Resolves on the first log entry with this `event`. */
  waitFor(event: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

/**
 * Starts a process and resolves as soon as its probes answer (its `probes` log entry), long
 * before it is ready: the database may still be down.
 */
export function startProbing(
  script: string,
  env: NodeJS.ProcessEnv,
  nodeArgs: string[] = [],
  cwd?: string,
): Promise<Probing> {
  const child = spawn(process.execPath, [...nodeArgs, script], {
    env,
    cwd,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  const entries: Record<string, unknown>[] = [];
  const waiters: { event: string; resolve: (entry: Record<string, unknown>) => void }[] = [];
  child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  createInterface({ input: child.stdout! }).on('line', (line) => {
    logs.push(line);
    let entry: Record<string, unknown>;
    try {
      entry = JSON.parse(line) as Record<string, unknown>;
    } catch {
      return;
    }
    entries.push(entry);
    for (const waiter of waiters.filter((w) => w.event === entry.event)) waiter.resolve(entry);
  });
  const waitFor = (event: string, timeoutMs = 30_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const seen = entries.find((entry) => entry.event === event);
      if (seen) return resolve(seen);
      const timer = setTimeout(
        () => reject(new Error(`no "${event}" within ${timeoutMs} ms:\n${logs.join('\n')}`)),
        timeoutMs,
      );
      waiters.push({
        event,
        resolve: (entry) => {
          clearTimeout(timer);
          resolve(entry);
        },
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`exited with ${code} before "${event}":\n${logs.join('\n')}`));
      });
    });
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
    });
  return waitFor('probes').then(
    (entry) => ({ child, url: String(entry.url), logs, waitFor, stop }),
    async (error: unknown) => {
      await stop();
      throw error;
    },
  );
}

export { freePort };
