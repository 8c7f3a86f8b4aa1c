import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { serviceNodeFlags } from '../../src/cli/node-flags';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';

// The project root: two levels up from test/support, three when compiled into dist/ (bench).
const ROOT = existsSync(join(__dirname, '..', '..', 'package.json'))
  ? join(__dirname, '..', '..')
  : join(__dirname, '..', '..', '..');
const GATEWAY = join(ROOT, 'dist', 'src', 'gateway.js');
const RUNNER = join(ROOT, 'dist', 'jobs', 'runner.js');

export interface RunningProcess {
  child: ChildProcess;
  logs: string[];
  stop(signal?: NodeJS.Signals): Promise<void>;
  /** Job runners: their `/metrics` URL (health is at `/health` beside it). */
  metricsUrl?: string;
}

/**
 * Starts a process and resolves on its ready line. Its output is kept in `logs` for test
 * failures to show, unless `KEEP_LOGS=false` is in its env (benchmarks): then, once ready, the
 * output is drained unread, so reading it costs the measuring process nothing.
 */
function launch(
  script: string,
  env: NodeJS.ProcessEnv,
  readyEvent: string,
): Promise<RunningProcess & { ready: Record<string, unknown> }> {
  // The flags `npm start` runs the processes with (the heap cap).
  const child = spawn(process.execPath, [...serviceNodeFlags(env), script], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const logs: string[] = [];
  child.stderr!.on('data', (chunk: Buffer) => logs.push(chunk.toString()));
  const stop = (signal: NodeJS.Signals = 'SIGTERM') =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill(signal);
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL'); // never leave a half-started process behind
      reject(new Error(`${script} not ready:\n${logs.join('\n')}`));
    }, 30_000);
    const lines = createInterface({ input: child.stdout! });
    lines.on('line', (line) => {
      logs.push(line);
      try {
        const entry = JSON.parse(line) as Record<string, unknown>;
        if (entry.event === readyEvent) {
          clearTimeout(timer);
          if (env.KEEP_LOGS === 'false') {
            lines.close();
            child.stdout!.resume();
          }
          resolve({ child, logs, stop, ready: entry });
        }
      } catch {
        // plain output
      }
    });
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${script} exited with ${code}:\n${logs.join('\n')}`));
    });
  });
}

export interface Gateway extends RunningProcess {
  url: string;
  /** The internal listener: `/metrics` and `/admin/graphql` (never on `url`). */
  internalUrl: string;
}

/** The encryption key every process under test gets (hex of 32 bytes; a test value, public). */
export const TEST_ENCRYPTION_KEY = '7e57'.repeat(16);

export function baseEnv(
  databaseUrl: string,
  extra: Record<string, string> = {},
): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    ONRAMP_ENV: 'sandbox',
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'info',
    JOB_POLL_MS: '200',
    DB_POOL_MAX: '5',
    // Job runners' health and metrics port: any free one, so runners can run side by side.
    JOBS_PORT: '0',
    // Every test sends from 127.0.0.1, many on purpose with bad keys: the per-address limit
    // would refuse the rest of a file. test/e2e/address-limit.e2e.test.ts runs the default.
    RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '1000000',
    // The tests' webhook receivers listen on loopback.
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    ...extra,
  };
}

/** `script`: another build's gateway (benchmarks compare two builds in one run). */
export async function startGateway(env: NodeJS.ProcessEnv, script = GATEWAY): Promise<Gateway> {
  const running = await launch(
    script,
    { ...env, PORT: '0', HOST: '127.0.0.1', INTERNAL_PORT: '0', INTERNAL_HOST: '127.0.0.1' },
    'listening',
  );
  return {
    ...running,
    url: String(running.ready.url),
    internalUrl: String(running.ready.internal_url),
  };
}

export async function startRunner(env: NodeJS.ProcessEnv): Promise<RunningProcess> {
  const running = await launch(RUNNER, env, 'ready');
  const metricsUrl = running.ready.metrics_url;
  return typeof metricsUrl === 'string' ? { ...running, metricsUrl } : running;
}

export interface Stack {
  gateways: Gateway[];
  runners: RunningProcess[];
  url: string;
  /** The first gateway's internal listener (`/metrics`, `/admin/graphql`). */
  internalUrl: string;
  stop(): Promise<void>;
}

/** Starts gateways and job runners as separate OS processes against one database. */
export async function startStack(
  databaseUrl: string,
  options: { env?: Record<string, string>; gateways?: number; runners?: number } = {},
): Promise<Stack> {
  const env = baseEnv(databaseUrl, options.env);
  // Start everything, and if any process fails to come up, stop the ones that did: a failed
  // start must not leave orphans behind the test run.
  const starts = [
    // As `npm start` runs them: gateways get the hot wallet's address, only runners its key.
    ...Array.from({ length: options.gateways ?? 1 }, () => startGateway(gatewayEnvironment(env))),
    ...Array.from({ length: options.runners ?? 1 }, () => startRunner(env)),
  ];
  const settled = await Promise.allSettled(starts);
  const failure = settled.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) {
    await Promise.all(
      settled.map((r) => (r.status === 'fulfilled' ? r.value.stop() : Promise.resolve())),
    );
    throw failure.reason;
  }
  const started = settled.map((r) => (r as PromiseFulfilledResult<RunningProcess>).value);
  const gateways = started.slice(0, options.gateways ?? 1) as Gateway[];
  const runners = started.slice(gateways.length);
  return {
    gateways,
    runners,
    url: gateways[0].url,
    internalUrl: gateways[0].internalUrl,
    stop: async () => {
      await Promise.all([...gateways, ...runners].map((p) => p.stop()));
    },
  };
}

const execFileAsync = promisify(execFile);

/** Runs the operator command line (`npx onramp ...`) against a database; parses `--json` output. */
export async function onrampCli(
  databaseUrl: string,
  args: string[],
  env: Record<string, string> = {},
): Promise<unknown> {
  const { stdout } = await execFileAsync(
    process.execPath,
    [join(ROOT, 'bin', 'onramp.js'), ...args],
    {
      env: { ...baseEnv(databaseUrl, env), LOG_LEVEL: 'silent' },
    },
  );
  return args.includes('--json') ? JSON.parse(stdout.trim()) : stdout;
}

export async function createMerchant(
  databaseUrl: string,
  name = 'Test Merchant',
): Promise<{ merchant_id: string; api_key: string }> {
  return (await onrampCli(databaseUrl, ['merchants', 'create', '--name', name, '--json'])) as {
    merchant_id: string;
    api_key: string;
  };
}

/** Polls until `check` returns a value (not undefined) or the time runs out. */
export async function eventually<T>(
  check: () => Promise<T | undefined>,
  timeoutMs = 15_000,
  everyMs = 100,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (error) {
      lastError = error;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(
    `condition not met within ${timeoutMs} ms${lastError ? `: ${String(lastError)}` : ''}`,
  );
}
