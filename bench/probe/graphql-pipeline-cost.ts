/**
 * `node dist/bench/probe/graphql-pipeline-cost.js [DIST_ROOT...]`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`: what the GraphQL layer alone costs per `deposit(id)` read,
 * in microseconds, without HTTP, Fastify or the database. The gateway's Apollo (`createApollo`
 * on `buildGraphQLSchema`, as `buildGateway` makes it) answers the reads benchmark's document
 * through `executeHTTPGraphQLRequest` (what the Fastify integration calls per request); the
 * resolver's read service answers a fixed settled deposit from memory. Not a test: the
 * figure that matters is the difference between builds (A/B: pass several dist roots, each
 * measured in its own process, interleaved), or with `NODE_ENV=production`. `PROBE_PROFILE=DIR`
 * writes each worker's V8 CPU profile there.
 */
import { fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 5);
const REQUESTS = Number(process.env.PROBE_REQUESTS ?? 20_000);

const QUERY = `query Deposit($id: ID!) {
  deposit(id: $id) {
    id depositId onrampId merchantId paymentReference userEmail amountNgn bankReference rateId
    amountAsset asset chain txHash status failureReason flagReason createdAt settledAt updatedAt
  }
}`;

const VIEW = {
  id: 'dep_01KAXR6Q0000000000000000',
  onrampId: 'onr_01KAXR6Q0000000000000000',
  merchantId: 'mer_01KAXR6Q0000000000000000',
  paymentReference: 'ONR-ABCDEFGH',
  userEmail: 'bench@example.com',
  amountNgn: '15000.00',
  bankReference: 'BENCH-READS-1',
  rateId: 'rate_01KAXR6Q0000000000000000',
  amountAsset: '9.876543',
  asset: 'USDC',
  chain: 'BASE',
  txHash: null,
  status: 'SETTLED',
  failureReason: null,
  flagReason: null,
  senderName: null,
  senderAccountLast4: null,
  senderBank: null,
  createdAt: new Date('2026-11-25T09:00:00Z'),
  settledAt: new Date('2026-11-25T09:00:01Z'),
  updatedAt: new Date('2026-11-25T09:00:01Z'),
};

async function worker(): Promise<Record<string, number>> {
  const root = join(__dirname, '..', '..');
  /* eslint-disable @typescript-eslint/no-require-imports */
  require('reflect-metadata');
  const pino = require('pino');
  const { HeaderMap } = require('@apollo/server');
  const { createApollo } = require(join(root, 'src', 'api', 'graphql', 'apollo'));
  const { buildGraphQLSchema } = require(join(root, 'src', 'api', 'graphql', 'schema'));
  let documentCache: ((schema: unknown, production: boolean) => unknown) | undefined;
  try {
    documentCache = require(
      join(root, 'src', 'api', 'graphql', 'document-cache'),
    ).graphqlDocumentCache;
  } catch {
    documentCache = undefined; // an older build
  }
  /* eslint-enable @typescript-eslint/no-require-imports */
  const schema = await buildGraphQLSchema();
  const apollo = createApollo(schema, {
    production: false,
    log: pino({ level: 'silent' }),
    ...(documentCache ? { documents: documentCache(schema, false) } : {}),
  });
  await apollo.start();
  const context = {
    principal: { kind: 'secret_key', scopes: ['all'] },
    services: { deposits: { findView: async () => VIEW } },
    requestContext: {},
    em: {},
    requestId: 'probe',
  };
  const headers = new HeaderMap([
    ['content-type', 'application/json'],
    ['authorization', 'Bearer probe'],
    ['accept', '*/*'],
  ]);
  const hash = createHash('sha256').update(QUERY).digest('hex');
  const read = async (body: unknown) => {
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: { method: 'POST', headers, search: '', body },
      context: async () => context,
    });
    const text = response.body.kind === 'complete' ? response.body.string : '';
    if (!text.includes('"SETTLED"')) throw new Error(text);
  };
  const loops: Record<string, () => Promise<void>> = {
    document: () => read({ query: QUERY, variables: { id: VIEW.id } }),
    apq: () =>
      read({
        variables: { id: VIEW.id },
        extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
      }),
  };
  await read({
    query: QUERY,
    variables: { id: VIEW.id },
    extensions: { persistedQuery: { version: 1, sha256Hash: hash } },
  });
  const costs: Record<string, number> = {};
  for (const [name, loop] of Object.entries(loops)) {
    for (let i = 0; i < 2000; i += 1) await loop();
    // Best of three: the machine is shared, and interference only ever adds.
    let best = Infinity;
    for (let run = 0; run < 3; run += 1) {
      const before = process.cpuUsage();
      for (let i = 0; i < REQUESTS; i += 1) await loop();
      const used = process.cpuUsage(before);
      best = Math.min(best, (used.user + used.system) / REQUESTS);
    }
    costs[name] = Math.round(best * 10) / 10;
  }
  await apollo.stop();
  return costs;
}

async function driver(): Promise<void> {
  const roots = process.argv.slice(2).map((r) => resolve(r));
  if (roots.length === 0) roots.push(join(__dirname, '..', '..'));
  const all = new Map<string, Record<string, number>[]>();
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < roots.length; i += 1) {
      const root = roots[(round + i) % roots.length];
      const costs = await new Promise<Record<string, number>>((done, fail) => {
        const child = fork(join(root, 'bench', 'probe', 'graphql-pipeline-cost.js'), ['worker'], {
          env: { ...process.env, NODE_PATH: join(__dirname, '..', '..', '..', 'node_modules') },
          // PROBE_PROFILE=DIR: a V8 CPU profile of each worker (`bench/lib/profile-top.js`).
          execArgv: process.env.PROBE_PROFILE
            ? ['--cpu-prof', '--cpu-prof-dir', process.env.PROBE_PROFILE]
            : [],
        });
        child.once('message', (m) => done(m as Record<string, number>));
        child.once('exit', (code) => fail(new Error(`worker ${root} exited with ${code}`)));
      });
      all.set(root, [...(all.get(root) ?? []), costs]);
      process.stdout.write(`${root} round ${round}: ${JSON.stringify(costs)} us/request\n`);
    }
  }
  for (const [root, runs] of all) {
    const median = (name: string) =>
      runs.map((r) => r[name]).sort((a, b) => a - b)[Math.floor(runs.length / 2)];
    process.stdout.write(
      `${root}: median us/request: document ${median('document')}, apq ${median('apq')}\n`,
    );
  }
}

if (process.argv[2] === 'worker') {
  worker().then(
    (costs) => process.send!(costs, () => process.exit(0)),
    (error) => {
      process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
      process.exit(1);
    },
  );
} else {
  driver().catch((error) => {
    process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
    process.exit(1);
  });
}
