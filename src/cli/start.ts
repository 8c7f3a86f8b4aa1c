import 'reflect-metadata';
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface, type Interface } from 'node:readline';
import { privateKeyToAccount } from 'viem/accounts';
import { loadConfig, loadConfigOrExit, type Config } from '../config';
import { systemClock } from '../clock';
import { migrate, openOrm } from '../orm';
import { createServices } from '../container';
import { CHAIN_IDS, CHAINS } from '../domain/chains';
import {
  LOCAL_HOT_WALLET_PRIVATE_KEY,
  startLocalChains,
  type LocalChains,
} from '../embedded/local-chains';
import { spawnEmbeddedPostgres, type PostgresProcess } from '../embedded/pg-process';
import { serviceNodeFlags } from './node-flags';
import { debugRequested, exitOnStartupFailure } from '../lib/startup-failure';
import { childEnvironment } from './start-env';
import { chainRpcUrls, confirmationsSetIn } from '../config-chains';
import { ensureSandboxKeyFile } from '../crypto/encryption-keys';
import { gatewayEnvironment } from '../crypto/process-secrets';
import { ensureSandboxMerchant } from '../embedded/sandbox-seed';
import {
  CHAIN_DATA_DIR,
  DATA_DIR,
  EMBEDDED_STATE_FILE,
  LOG_DIR,
  PG_DATA_DIR,
  SANDBOX_CREDENTIALS_FILE,
} from '../embedded/paths';

const EMBEDDED_PG_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329);
/** The local chains listen on this port and the next two (BASE, ETHEREUM, POLYGON). */
const EMBEDDED_CHAIN_BASE_PORT = Number(process.env.EMBEDDED_CHAIN_BASE_PORT ?? 8545);

function say(line: string): void {
  process.stdout.write(`${line}\n`);
}

/** A started process and the lines of its stdout, for start-up detection to listen to. */
interface Supervised {
  child: ChildProcess;
  lines: Interface;
}

/**
 * Spawns one process; its JSON logs go to `.data/logs/<name>.log`, warnings also to the console.
 * Both outputs are read for as long as the process runs: each has the file pipe and one more
 * reader (the line splitter, the echo), and neither ever pauses it. An unread pipe fills, and
 * the process would keep its unwritten lines in memory (issue 39).
 */
function startProcess(name: string, script: string, env: NodeJS.ProcessEnv): Supervised {
  // Own process group: a terminal Ctrl-C reaches only this supervisor, which stops children in order.
  const child = spawn(process.execPath, [...serviceNodeFlags(env), script], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const file = createWriteStream(join(LOG_DIR, `${name}.log`), { flags: 'a' });
  child.stdout!.pipe(file, { end: false });
  child.stderr!.pipe(file, { end: false });
  child.stderr!.on('data', (chunk: Buffer) =>
    process.stderr.write(`[${name}] ${chunk.toString()}`),
  );
  // Never closed: closing a readline interface pauses its input, the file pipe's too.
  const lines = createInterface({ input: child.stdout! });
  lines.on('line', (line) => {
    try {
      const entry = JSON.parse(line) as { level?: number; msg?: string };
      if ((entry.level ?? 0) >= 40) say(`[${name}] ${entry.msg ?? line}`);
    } catch {
      say(`[${name}] ${line}`);
    }
  });
  return { child, lines };
}

/** Resolves with the first log entry of `event`; stops listening then (the stream flows on). */
function waitForLog(
  { child, lines }: Supervised,
  event: string,
  timeoutMs: number,
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const done = () => {
      clearTimeout(timer);
      lines.off('line', onLine);
      child.off('exit', onExit);
    };
    const timer = setTimeout(() => {
      done();
      reject(new Error(`no "${event}" within ${timeoutMs} ms`));
    }, timeoutMs);
    const onLine = (line: string) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        return; // not a log line
      }
      if (entry.event !== event) return;
      done();
      resolve(entry);
    };
    const onExit = (code: number | null) => {
      done();
      reject(new Error(`exited with code ${code} before "${event}"`));
    };
    lines.on('line', onLine);
    child.once('exit', onExit);
  });
}

/**
 * Chain RPC URLs are all or nothing: with none, `npm start` runs local chains for all three;
 * a mix would pay out on some real networks and leave the others silently unconfigured.
 */
function chainMode(config: Config): 'local' | 'configured' {
  const set = CHAINS.filter((chain) => chainRpcUrls(config, chain).length > 0);
  if (set.length === 0) return 'local';
  if (set.length === CHAINS.length) return 'configured';
  const missing = CHAINS.filter((chain) => !set.includes(chain)).map((c) => `${c}_RPC_URL(S)`);
  process.stderr.write(
    `Set all of ${CHAINS.map((c) => `${c}_RPC_URL`).join(', ')} or none of them ` +
      `(none: npm start runs local chains). Missing: ${missing.join(', ')}.\n`,
  );
  process.exit(78); // EX_CONFIG, as for any other configuration problem
}

/**
 * `npm start`: the whole sandbox on one machine. Local anvil chains (unless chain RPC URLs are
 * set), embedded PostgreSQL (unless DATABASE_URL is set), migrations, a seeded sandbox merchant,
 * then the gateway and the job runner as two separate processes. Ctrl-C stops everything.
 */
async function main(): Promise<void> {
  const config = loadConfigOrExit();
  const mode = chainMode(config);
  // A sandbox without ENCRYPTION_KEY: one generated once and kept under .data/, given to both
  // processes (and found there by the `onramp` command line).
  const encryptionEnv =
    config.ONRAMP_ENV === 'sandbox' && !config.ENCRYPTION_KEY
      ? { ENCRYPTION_KEY: ensureSandboxKeyFile() }
      : {};
  mkdirSync(LOG_DIR, { recursive: true });
  const children: ChildProcess[] = [];
  let chains: LocalChains | undefined;
  let postgres: PostgresProcess | undefined;

  // Installed before anything starts: a Ctrl-C during start-up still stops what is running
  // (everything is detached into its own process group, so the signal reaches only us).
  let stopping = false;
  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    say('\nStopping ...');
    await Promise.all(
      children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            child.once('exit', () => resolve());
            child.kill('SIGTERM');
            setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
          }),
      ),
    );
    // After the processes that use them; anvil saves its state on the way out.
    await chains?.stop();
    if (postgres) {
      await postgres.stop();
      rmSync(EMBEDDED_STATE_FILE, { force: true });
    }
    say('Stopped.');
    process.exit(code);
  };
  process.on('SIGINT', () => void stopAll(0));
  process.on('SIGTERM', () => void stopAll(0));

  if (mode === 'local') {
    say(`Starting local chains (state in ${CHAIN_DATA_DIR}) ...`);
    chains = await startLocalChains({
      basePort: EMBEDDED_CHAIN_BASE_PORT,
      blockTimeSeconds: config.LOCAL_CHAIN_BLOCK_SECONDS,
      stateDir: CHAIN_DATA_DIR,
      logDir: LOG_DIR,
    });
  }

  let databaseUrl = config.DATABASE_URL;
  if (!databaseUrl) {
    say(`Starting embedded PostgreSQL (data in ${PG_DATA_DIR}) ...`);
    postgres = await spawnEmbeddedPostgres({
      dataDir: PG_DATA_DIR,
      port: EMBEDDED_PG_PORT,
      database: 'onramp',
      persistent: true,
    });
    databaseUrl = postgres.url;
    writeFileSync(EMBEDDED_STATE_FILE, JSON.stringify({ database_url: databaseUrl }), {
      mode: 0o600,
    });
  }

  const orm = await openOrm({ databaseUrl });
  await migrate(orm);
  // The same settings the children get (local chain addresses included).
  const services = createServices(
    loadConfig({
      ...process.env,
      DATABASE_URL: databaseUrl,
      ...chains?.env,
      ...confirmationsSetIn(process.env),
      ...encryptionEnv,
    }),
    systemClock,
  );
  const credentials =
    config.ONRAMP_ENV === 'sandbox'
      ? await ensureSandboxMerchant(orm, services, SANDBOX_CREDENTIALS_FILE)
      : undefined;
  await orm.close();

  // With local chains their RPC URLs, token addresses and hot-wallet key replace any set in the
  // environment: a key meant for real networks must never sign on chains it was not set up for.
  const env = childEnvironment(config.ONRAMP_ENV, process.env, {
    DATABASE_URL: databaseUrl,
    ...chains?.env,
    ...confirmationsSetIn(process.env),
    ...encryptionEnv,
  });
  // The gateway gets the hot wallet's address, never its key: only the job runner signs.
  const gateway = startProcess(
    'gateway',
    join(__dirname, '..', 'gateway.js'),
    gatewayEnvironment(env),
  );
  const jobs = startProcess('jobs', join(__dirname, '..', '..', 'jobs', 'runner.js'), env);
  children.push(gateway.child, jobs.child);

  for (const child of children) {
    child.once('exit', (code) => {
      if (!stopping) {
        say(`A process exited unexpectedly (code ${code}); see ${LOG_DIR}`);
        // Its exit code (docs/cli.md, "Process exit codes"): a start-up failure keeps its meaning.
        void stopAll(code || 1);
      }
    });
  }

  const [listening, ready] = await Promise.all([
    waitForLog(gateway, 'listening', 60_000),
    waitForLog(jobs, 'ready', 60_000),
  ]);
  const url = String(listening.url).replace('127.0.0.1', 'localhost');
  // /metrics and /admin/graphql are never on the API port: the internal listener serves them.
  const internalUrl = String(listening.internal_url).replace('127.0.0.1', 'localhost');
  say('');
  say('NGN onramp sandbox is running');
  say(
    `  REST       ${url}/v1   (try: curl -H "Authorization: Bearer $KEY" "${url}/v1/rates?from=NGN")`,
  );
  say(`  GraphQL    ${url}/graphql`);
  say(`  WebSocket  ${url.replace(/^http/, 'ws')}/graphql   (graphql-ws)`);
  say(`  OpenAPI    ${url}/v1/openapi.json`);
  say(`  Health     ${url}/health`);
  say(`  Metrics    ${internalUrl}/metrics   (gateway, internal listener)`);
  if (typeof ready.metrics_url === 'string') {
    say(`             ${ready.metrics_url.replace('127.0.0.1', 'localhost')}   (job runner)`);
  }
  say(`  Admin      ${internalUrl}/admin/graphql   (operator token: npx onramp operators issue)`);
  say(`  Dashboard  ${url}/dashboard   (sign in with the API key below)`);
  if (credentials) {
    say(`  Merchant   ${credentials.merchant_id}`);
    say(`  API key    ${credentials.api_key}`);
  }
  if (chains) {
    chains.chains.forEach((chain, index) => {
      const label = index === 0 ? 'Chains    ' : '          ';
      say(
        `  ${label} ${chain.chain} ${chain.rpcUrl} (chain id ${CHAIN_IDS[chain.chain]})  ` +
          `USDC ${chain.tokens.USDC}  USDT ${chain.tokens.USDT}`,
      );
    });
    const hotWallet = privateKeyToAccount(LOCAL_HOT_WALLET_PRIVATE_KEY).address;
    say(`  Hot wallet ${hotWallet}   (anvil's public dev account #0: local chains only)`);
  } else {
    say(`  Chains     ${CHAINS.join(', ')} via the configured RPC URLs`);
  }
  say(`  Logs       ${LOG_DIR}`);
  say(`  Data       ${DATA_DIR}`);
  say('Press Ctrl-C to stop.');
}

main().catch((error: unknown) => exitOnStartupFailure('the service', error, debugRequested()));
