/**
 * `node dist/bench/probe/graphql-read-cost.js [DIST_ROOT...]`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`: the gateway's CPU per read, JavaScript only, with no HTTP
 * syscalls in the way. Starts a bench stack (embedded PostgreSQL, gateway, runner), seeds
 * settled deposits, then forks one worker per DIST_ROOT in turn (default: this dist), ROUNDS
 * times, interleaved: each builds the real gateway in process (`buildGateway`, the same options
 * as `src/gateway.ts`, logging at info to /dev/null) and runs `app.inject()` loops of REST
 * `GET /v1/deposits/{id}`, GraphQL `deposit(id)` with the document, and the same with an
 * automatic persisted query hash only. It prints microseconds of process CPU per request.
 *
 * A/B: copy a built `dist/` elsewhere (e.g. `.dist-before/`, git-ignored) and pass both roots;
 * `NODE_PATH` lets a copy outside the worktree find `node_modules`.
 * `PROBE_PROFILE=DIR`: each worker writes a V8 CPU profile of its GraphQL loop there
 * (`node bench/lib/profile-top.js FILE`). `PROBE_REQUESTS` (default 4,000) per loop.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { runLoad, type RequestTemplate } from '../lib/load';
import { baseEnv } from '../../test/support/stack';
import { seedSettledDeposits } from '../lib/read-targets';
import { startBenchStack } from '../lib/stack';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 3);
const REQUESTS = Number(process.env.PROBE_REQUESTS ?? 4000);
const IN_FLIGHT = 8;
const DEPOSITS = 20;
const HTTP_MS = Number(process.env.PROBE_HTTP_MS ?? 3000);

const QUERY = `query Deposit($id: ID!) {
  deposit(id: $id) {
    id depositId onrampId merchantId paymentReference userEmail amountNgn bankReference rateId
    amountAsset asset chain txHash status failureReason flagReason createdAt settledAt updatedAt
  }
}`;

interface Seeded {
  databaseUrl: string;
  key: string;
  ids: string[];
}

type Costs = Record<string, number>;

async function seed(): Promise<{ seeded: Seeded; stop: () => Promise<void> }> {
  const bench = await startBenchStack();
  const ids = await seedSettledDeposits(bench, DEPOSITS);
  const seeded = { databaseUrl: bench.databaseUrl, key: bench.merchant.api_key, ids };
  return { seeded, stop: () => bench.stop() };
}

function runWorker(distRoot: string, seeded: Seeded, label: string): Promise<Costs> {
  return new Promise((done, fail) => {
    const child = fork(join(distRoot, 'bench', 'probe', 'graphql-read-cost.js'), ['worker'], {
      env: {
        ...process.env,
        NODE_PATH: join(__dirname, '..', '..', '..', 'node_modules'),
        PROBE_LABEL: label,
      },
    });
    child.once('message', (m) => done(m as Costs));
    child.once('exit', (code) => fail(new Error(`worker ${distRoot} exited with ${code}`)));
    child.send(seeded);
  });
}

async function driver(): Promise<void> {
  const roots = process.argv.slice(2).map((r) => resolve(r));
  if (roots.length === 0) roots.push(join(__dirname, '..', '..'));
  const { seeded, stop } = await seed();
  const all: Record<string, Costs[]> = {};
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let i = 0; i < roots.length; i += 1) {
        const root = roots[(round + i) % roots.length];
        const costs = await runWorker(root, seeded, `${(round + i) % roots.length}-r${round}`);
        (all[root] ??= []).push(costs);
        process.stderr.write(`${root} round ${round}: ${JSON.stringify(costs)}\n`);
      }
    }
  } finally {
    await stop();
  }
  for (const [root, runs] of Object.entries(all)) {
    const loops = Object.keys(runs[0]);
    const medians = loops.map((loop) => {
      const sorted = runs.map((r) => r[loop]).sort((a, b) => a - b);
      return `${loop} ${sorted[Math.floor(sorted.length / 2)]} us`;
    });
    process.stderr.write(`${root}: median CPU per request: ${medians.join(', ')}\n`);
  }
}

/** Runs `send` REQUESTS times, IN_FLIGHT at a time; process CPU per request in microseconds. */
async function cpuPerRequest(send: (i: number) => Promise<void>): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next < REQUESTS) await send(next++);
  };
  const before = process.cpuUsage();
  const statementsBefore = statements.count;
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const used = process.cpuUsage(before);
  statements.perRequest.push(round2((statements.count - statementsBefore) / REQUESTS));
  return Math.round((used.user + used.system) / REQUESTS);
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/** SQL statements the worker's `pg` clients sent, and per request for each loop in turn. */
const statements = { count: 0, perRequest: [] as number[] };

/** Counts every statement sent through `pg` (MikroORM's and the listeners' alike). */
function countStatements(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { Client } = require('pg');
  const query = Client.prototype.query;
  Client.prototype.query = function (this: unknown, ...args: unknown[]) {
    statements.count += 1;
    return query.apply(this, args);
  };
}

/** `what()`, and with PROBE_PROFILE set, a V8 CPU profile of it (its figure then runs high). */
async function profiled<T>(name: string, what: () => Promise<T>): Promise<T> {
  const dir = process.env.PROBE_PROFILE;
  if (!dir) return what();
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 200 });
  await session.post('Profiler.start');
  const result = await what();
  const { profile } = await session.post('Profiler.stop');
  writeFileSync(
    join(dir, `${name}-${process.env.PROBE_LABEL}.cpuprofile`),
    JSON.stringify(profile),
  );
  session.disconnect();
  return result;
}

async function worker(seeded: Seeded): Promise<Costs> {
  const root = join(__dirname, '..', '..');
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('reflect-metadata');
  countStatements();
  const pino = require('pino');
  const { loadConfig } = require(join(root, 'src', 'config'));
  const { systemClock } = require(join(root, 'src', 'clock'));
  const { createLogger } = require(join(root, 'src', 'logger'));
  const { openOrm } = require(join(root, 'src', 'orm'));
  const { createServices } = require(join(root, 'src', 'container'));
  const { buildGateway } = require(join(root, 'src', 'api', 'server'));
  const { AddressLimiter } = require(join(root, 'src', 'api', 'address-limit'));
  const { createRateLimitStore } = require(join(root, 'src', 'api', 'rate-limit'));
  const { createGatewayMetrics } = require(join(root, 'src', 'metrics', 'gateway-metrics'));
  const hub = require(join(root, 'src', 'db', 'notification-hub'));
  /* eslint-enable @typescript-eslint/no-require-imports */
  const config = loadConfig({
    ...baseEnv(seeded.databaseUrl),
    DB_POOL_MAX: '10',
    RATE_LIMIT_PER_MINUTE: '10000000',
  });
  const logger = createLogger('gateway', 'info', pino.destination({ dest: '/dev/null' }));
  const orm = await openOrm({ databaseUrl: seeded.databaseUrl, poolMax: config.DB_POOL_MAX });
  const services = createServices(config, systemClock);
  const metrics = createGatewayMetrics({ orm, log: logger });
  const rateLimitStore = createRateLimitStore(orm, systemClock);
  const limiter = new AddressLimiter(rateLimitStore, systemClock, 1_000_000);
  // As src/gateway.ts: key cache and rates from memory, through the process's LISTEN.
  const notifications = new hub.NotificationHub({
    databaseUrl: seeded.databaseUrl,
    applicationName: hub.GATEWAY_LISTEN_APPLICATION_NAME,
    log: logger,
  });
  await notifications.start();
  const app = await buildGateway({
    orm,
    services,
    logger,
    metrics,
    notifications,
    limiter,
    rateLimitStore,
    version: 'probe',
  });
  await app.ready();
  const headers = { authorization: `Bearer ${seeded.key}`, 'content-type': 'application/json' };
  const idOf = (i: number) => seeded.ids[i % seeded.ids.length];
  const expect = (ok: boolean, what: string, body: string) => {
    if (!ok) throw new Error(`${what}: ${body.slice(0, 300)}`);
  };
  const rest = async (i: number) => {
    const r = await app.inject({ method: 'GET', url: `/v1/deposits/${idOf(i)}`, headers });
    expect(r.statusCode === 200, 'REST', r.body);
  };
  const graphql = async (i: number) => {
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: JSON.stringify({ query: QUERY, variables: { id: idOf(i) } }),
    });
    expect(r.statusCode === 200 && !r.body.includes('"errors"'), 'GraphQL', r.body);
  };
  const sha256Hash = createHash('sha256').update(QUERY).digest('hex');
  const persistedQuery = { version: 1, sha256Hash };
  const apq = async (i: number) => {
    const r = await app.inject({
      method: 'POST',
      url: '/graphql',
      headers,
      payload: JSON.stringify({ variables: { id: idOf(i) }, extensions: { persistedQuery } }),
    });
    expect(r.statusCode === 200 && !r.body.includes('"errors"'), 'APQ', r.body);
  };
  // Registers the hash (the document sent with it once), then warms every path up.
  await app.inject({
    method: 'POST',
    url: '/graphql',
    headers,
    payload: JSON.stringify({
      query: QUERY,
      variables: { id: idOf(0) },
      extensions: { persistedQuery },
    }),
  });
  for (const send of [rest, graphql, apq]) {
    for (let i = 0; i < 500; i += 1) await send(i);
  }
  const costs: Costs = { rest: await profiled('rest', () => cpuPerRequest(rest)) };
  costs.graphql = await profiled('graphql', () => cpuPerRequest(graphql));
  costs.apq = await cpuPerRequest(apq);
  costs.graphql2 = await cpuPerRequest(graphql);
  // Over real HTTP (load from other processes): the gateway's CPU per answered request.
  const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' });
  const overHttp = async (requests: RequestTemplate[]) => {
    const before = process.cpuUsage();
    const statementsBefore = statements.count;
    const result = await runLoad({ baseUrl, requests, durationMs: HTTP_MS, concurrency: 32 }, 2);
    const used = process.cpuUsage(before);
    const answered = result.latenciesMs.length;
    const bad = Object.keys(result.statuses).filter((s) => s !== '200');
    if (bad.length) throw new Error(`over HTTP: statuses ${bad.join(', ')}`);
    statements.perRequest.push(round2((statements.count - statementsBefore) / answered));
    return Math.round((used.user + used.system) / answered);
  };
  const authorization = `Bearer ${seeded.key}`;
  const restRequests = seeded.ids.map((id) => ({
    method: 'GET',
    path: `/v1/deposits/${id}`,
    headers: { authorization },
  }));
  const graphqlRequests = seeded.ids.map((id) => ({
    method: 'POST',
    path: '/graphql',
    headers: { authorization },
    body: { query: QUERY, variables: { id } },
  }));
  await overHttp(restRequests);
  costs.httpRest = await overHttp(restRequests);
  costs.httpGraphql = await overHttp(graphqlRequests);
  costs.httpRest2 = await profiled('http-rest', () => overHttp(restRequests));
  costs.httpGraphql2 = await profiled('http-graphql', () => overHttp(graphqlRequests));
  process.stderr.write(`statements per request, loop by loop: ${statements.perRequest}\n`);
  await app.close();
  await notifications.stop();
  metrics.close();
  await orm.close();
  return costs;
}

if (process.argv[2] === 'worker') {
  process.once('message', (seeded) => {
    worker(seeded as Seeded).then(
      (costs) => process.send!(costs, () => process.exit(0)),
      (error) => {
        process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
        process.exit(1);
      },
    );
  });
} else {
  driver().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
