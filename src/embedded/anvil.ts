import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { Chain } from '../domain/assets';
import { CHAIN_IDS } from '../domain/chains';

export interface AnvilOptions {
  chain: Chain;
  port: number;
  /** Interval mining: one block every this many seconds, with or without transactions. */
  blockTimeSeconds: number;
  /**
   * Where the chain keeps its state across restarts. anvil loads it at start, rewrites it every
   * second and on SIGTERM/SIGINT, so a stop (or even a kill) loses at most a second.
   */
  stateFile?: string;
  /** anvil's own log (one line per RPC call and per mined transaction). Discarded when unset. */
  logFile?: string;
  timeoutMs?: number;
}

export interface AnvilProcess {
  chain: Chain;
  rpcUrl: string;
  port: number;
  child: ChildProcess;
  stop(): Promise<void>;
}

const ARCH: Record<string, string> = { x64: 'amd64', arm64: 'arm64' };
const PLATFORM: Record<string, string> = { linux: 'linux', darwin: 'darwin', win32: 'win32' };

/**
 * The binary of the `@foundry-rs/anvil-<platform>-<arch>` package npm installed as an optional
 * dependency (the package `@foundry-rs/anvil` ships for each platform). Resolved directly
 * rather than through the wrapper's postinstall, which npm may skip (`--ignore-scripts`).
 * `ANVIL_BINARY` points at another anvil, e.g. on a platform whose package is not installed.
 */
export function anvilBinaryPath(): string {
  if (process.env.ANVIL_BINARY) return process.env.ANVIL_BINARY;
  const platform = PLATFORM[process.platform];
  const arch = ARCH[process.arch];
  if (!platform || !arch)
    throw new Error(`anvil has no binary for ${process.platform}-${process.arch}`);
  const name = `@foundry-rs/anvil-${platform}-${arch}`;
  let manifest: string;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    throw new Error(
      `${name} is not installed: on this platform install it (npm install --no-save ${name}) ` +
        'or set ANVIL_BINARY to an anvil binary',
    );
  }
  const binary = join(dirname(manifest), 'bin', platform === 'win32' ? 'anvil.exe' : 'anvil');
  if (!existsSync(binary)) throw new Error(`${name} has no ${binary} (reinstall: npm ci)`);
  return binary;
}

/**
 * Anvils still running when this process exits (a crash, process.exit during start-up) get
 * SIGTERM, so they save their state and go away instead of holding their ports. The hook is
 * installed only while some anvil runs, so repeated test files do not pile up listeners.
 */
const running = new Set<ChildProcess>();
function terminateRunning(): void {
  for (const child of running) child.kill('SIGTERM');
}
function track(child: ChildProcess): void {
  if (running.size === 0) process.on('exit', terminateRunning);
  running.add(child);
  child.once('exit', () => {
    running.delete(child);
    if (running.size === 0) process.off('exit', terminateRunning);
  });
}

function stopChild(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise((resolve) => {
    // No pid: it never started (spawn error), so there is nothing to wait for.
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) {
      return resolve();
    }
    const force = setTimeout(() => child.kill('SIGKILL'), graceMs);
    child.once('exit', () => {
      clearTimeout(force);
      resolve();
    });
    // SIGTERM: anvil writes its state file before exiting (checked: exit code 0, file complete).
    child.kill('SIGTERM');
  });
}

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const response = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await response.json()) as { result?: string };
    return body.result === undefined ? undefined : Number(body.result);
  } catch {
    return undefined; // not listening yet
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Starts one anvil with the chain's real chain id, detached into its own process group so a
 * terminal Ctrl-C reaches only our supervisor (which stops it in order, after the processes
 * that use it). Resolves once the node answers `eth_chainId` with that id.
 */
export async function startAnvil(options: AnvilOptions): Promise<AnvilProcess> {
  const chainId = CHAIN_IDS[options.chain];
  const rpcUrl = `http://127.0.0.1:${options.port}`;
  const args = [
    '--chain-id',
    String(chainId),
    '--host',
    '127.0.0.1',
    '--port',
    String(options.port),
    '--block-time',
    String(options.blockTimeSeconds),
  ];
  if (options.stateFile) {
    mkdirSync(dirname(options.stateFile), { recursive: true });
    args.push('--state', options.stateFile, '--state-interval', '1');
  }

  const child = spawn(anvilBinaryPath(), args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  track(child);
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-8_000)));
  if (options.logFile) {
    mkdirSync(dirname(options.logFile), { recursive: true });
    child.stdout!.pipe(createWriteStream(options.logFile, { flags: 'a' }));
  }
  // "Listening on" is printed once this process has bound the port: without waiting for it, a
  // stale node already on the port could answer the poll below while ours fails to bind.
  let listening = false;
  let head = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    // Always listening, so the pipe keeps draining (a full pipe would block anvil).
    if (listening) return;
    head = (head + chunk.toString()).slice(-1_000);
    listening = head.includes('Listening on');
  });
  let exited: string | undefined;
  child.once('exit', (code, signal) => (exited = signal ?? String(code)));
  child.once('error', (error) => (exited = error.message));

  const describe = (why: string) =>
    new Error(`anvil for ${options.chain} on port ${options.port} ${why}: ${stderr.trim()}`);
  let timedOut = false;
  const timer = setTimeout(() => (timedOut = true), options.timeoutMs ?? 30_000);
  try {
    for (;;) {
      if (exited !== undefined) throw describe(`exited (${exited})`);
      if (timedOut) throw describe('did not answer eth_chainId in time');
      if (listening) {
        const answered = await rpcChainId(rpcUrl);
        if (answered !== undefined && answered !== chainId) {
          throw describe(`answers chain id ${answered}, expected ${chainId}`);
        }
        if (answered === chainId && exited === undefined) break;
      }
      await sleep(50);
    }
  } catch (error) {
    await stopChild(child, 2_000);
    throw error;
  } finally {
    clearTimeout(timer);
  }

  return { chain: options.chain, rpcUrl, port: options.port, child, stop: () => stopChild(child) };
}
