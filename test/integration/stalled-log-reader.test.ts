import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { serviceNodeFlags } from '../../src/cli/node-flags';

const FLOOD = join(__dirname, '..', 'support', 'log-flood.js');
const BOUND = 1024 * 1024;
/** Lines per flood: each about 330 bytes, so one flood is some 33 MB, 30 times the bound. */
const LINES = 100_000;

interface Memory {
  rss: number;
  heapUsed: number;
  dropped: number;
  /** `onramp_log_lines_dropped_total` as the process's registry renders it. */
  metric: number;
}

/** The next IPC message from `child` that has `key`. */
function next<T>(child: ChildProcess, key: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const onMessage = (message: Record<string, unknown>) => {
      if (!(key in message)) return;
      child.off('message', onMessage);
      child.off('exit', onExit);
      resolve(message as T);
    };
    const onExit = (code: number | null, signal: string | null) =>
      reject(new Error(`log flood exited (${code ?? signal}) before "${key}"`));
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/**
 * Issue 39: a process whose standard output nobody reads (a stalled supervisor, log shipper or
 * container runtime) kept every unwritten log line in memory until its heap cap killed it.
 * Here a process logs through the service's own logger, at the service's heap cap, with its
 * stdout never read: what it holds stays within the bound however much it logs, the lines it
 * could not keep are counted (and on its /metrics counter), and once its output is read again
 * every line is either written or counted, and the log says how many were dropped.
 */
describe('a process whose standard output is not read', () => {
  let child: ChildProcess;
  afterEach(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });

  it('holds at most LOG_BUFFER_MAX_BYTES of log lines and counts the ones it drops', async () => {
    child = fork(FLOOD, [], {
      // The gateway's and runner's own heap cap (unbounded, the lines held grew towards it).
      execArgv: [...serviceNodeFlags({}), '--expose-gc'],
      env: { PATH: process.env.PATH, LOG_BUFFER_MAX_BYTES: String(BOUND) },
      stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    });
    // The pipe is never read (until the end): it fills, and the process's writes stop there.
    child.stdout!.pause();
    const baseline = await next<Memory>(child, 'baseline');

    child.send({ flood: LINES });
    const first = await next<Memory>(child, 'flooded');
    child.send({ flood: LINES });
    const second = await next<Memory>(child, 'flooded');

    // What the process holds after each flood (after a full GC): the bound and a little, not
    // the 33 and 66 MB it logged; the second flood adds nothing.
    const held = (m: Memory) => m.heapUsed - baseline.heapUsed;
    expect(held(first)).toBeLessThan(4 * BOUND);
    expect(held(second)).toBeLessThan(4 * BOUND);
    expect(second.rss).toBeLessThan(baseline.rss + 64 * BOUND);
    // Nearly every line was dropped (the pipe and the bound take a few thousand) and counted,
    // the counter rising with each flood.
    expect(first.dropped).toBeGreaterThan(LINES * 0.9);
    expect(second.dropped).toBeGreaterThan(first.dropped + LINES * 0.9);
    expect([first.metric, second.metric]).toEqual([first.dropped, second.dropped]);

    // Read again: everything not dropped is written, and the log says what is missing.
    const finishing = next(child, 'finishing');
    child.send({ finish: true });
    await finishing;
    let text = '';
    child.stdout!.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stdout!.resume();
    await new Promise((resolve) => child.stdout!.once('end', resolve));
    const entries = text
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const flooded = entries.filter((entry) => entry.msg === 'flood line');
    expect(flooded.length + second.dropped).toBe(2 * LINES);
    const reports = entries.filter((entry) => typeof entry.dropped_lines === 'number');
    expect(reports.map((entry) => entry.dropped_lines_total).at(-1)).toBe(second.dropped);
    expect(reports.every((entry) => entry.level === 40)).toBe(true);
  });
});
