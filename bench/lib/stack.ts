import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnEmbeddedPostgres, type PostgresProcess } from '../../src/embedded/pg-process';
import { startTestChains, type TestChains } from '../../test/support/chains';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { baseEnv, createMerchant, startStack, type Stack } from '../../test/support/stack';

export const ROOT = join(__dirname, '..', '..', '..');

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

export interface BenchStack {
  stack: Stack;
  databaseUrl: string;
  /** The embedded PostgreSQL's helper process (its server and backends run below it). */
  postgresPid: number;
  chains: TestChains | null;
  merchant: { merchant_id: string; api_key: string };
  /** The environment the stack's gateway got (a second one can be started alike). */
  gatewayEnv: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/**
 * A fresh embedded PostgreSQL, optionally the local anvil chains (1 s blocks), and the real
 * gateway and job runner processes on the embedded defaults. Only the rate limit is raised
 * (through its setting), so the load is measured rather than refused.
 */
export async function startBenchStack(
  options: {
    chains?: boolean;
    env?: Record<string, string>;
    postgresSettings?: Record<string, string>;
  } = {},
): Promise<BenchStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'onramp-bench-pg-'));
  const postgres: PostgresProcess = await spawnEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    database: 'onramp_bench',
    persistent: false,
    settings: options.postgresSettings,
  });
  const databaseUrl = postgres.url;
  execFileSync(process.execPath, [join(ROOT, 'bin', 'onramp.js'), 'db', 'migrate'], {
    env: { PATH: process.env.PATH, DATABASE_URL: databaseUrl, LOG_LEVEL: 'silent' },
    stdio: 'pipe',
  });
  const chains = options.chains ? await startTestChains({ blockTimeSeconds: 1 }) : null;
  const env: Record<string, string> = {
    // The embedded defaults, not the tests' shortened ones.
    JOB_POLL_MS: '1000',
    DB_POOL_MAX: '10',
    RATE_LIMIT_PER_MINUTE: '10000000',
    // The subscription benchmark holds 1,000 sockets of one key on one gateway.
    WS_MAX_SOCKETS_PER_KEY: '100000',
    WS_MAX_SUBSCRIPTIONS_PER_KEY: '100000',
    // The processes log as configured (info); the benchmark drains their output unread.
    KEEP_LOGS: 'false',
    ...(chains?.env ?? {}),
    // BENCH_PROFILE_DIR: each process writes a V8 CPU profile there when it exits.
    ...(process.env.BENCH_PROFILE_DIR
      ? {
          BENCH_PROFILE_DIR: process.env.BENCH_PROFILE_DIR,
          NODE_OPTIONS: `--require ${join(ROOT, 'bench', 'lib', 'cpu-profile-preload.js')}`,
        }
      : {}),
    ...options.env,
  };
  const stack = await startStack(databaseUrl, { env });
  const merchant = await createMerchant(databaseUrl, 'Bench Co');
  return {
    stack,
    databaseUrl,
    postgresPid: postgres.child.pid!,
    chains,
    merchant,
    gatewayEnv: gatewayEnvironment(baseEnv(databaseUrl, env)),
    stop: async () => {
      await stack.stop();
      await chains?.stop();
      await postgres.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
