/**
 * `node dist/bench/probe/rate-limit-cost.js [DIST_ROOT...]`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`: what the per-key rate limit alone costs a request, in
 * microseconds of CPU, without the database, HTTP or the rest of the gateway. Each DIST_ROOT's
 * `registerRateLimit` (src/api/rate-limit.js: @fastify/rate-limit in one build, the
 * hand-written hook in another) limits a bare Fastify route whose `onRequest` sets a secret
 * key's principal, as the gateway's authentication does; its store answers from memory on the
 * next turn of the event loop (`setImmediate`, where the shared store answers after a query).
 * The same route without any limiter is measured too (`none`), so each figure minus `none` is
 * the limiter's own cost. Each root runs in its own process, ROUNDS times, interleaved.
 * `NODE_PATH` lets a copy outside the worktree find `node_modules`.
 */
import { fork } from 'node:child_process';
import { join, resolve } from 'node:path';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 7);
const REQUESTS = Number(process.env.PROBE_REQUESTS ?? 20_000);
const IN_FLIGHT = 16;

type Costs = { limited: number; none: number };

/** Counts in memory, answering as the shared store does: `incr(key, cb)`, a turn later. */
class MemoryStore {
  private readonly counts = new Map<string, number>();

  incr(key: string, cb: (error: Error | null, r?: { current: number; ttl: number }) => void) {
    const current = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, current);
    setImmediate(() => cb(null, { current, ttl: 30_000 }));
  }

  child(): MemoryStore {
    return this;
  }
}

/** A Fastify app with one route; `limit` registers the limiter (or nothing for `none`). */
async function appWith(limit?: (app: unknown) => unknown) {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const Fastify = require('fastify') as typeof import('fastify').default;
  const app = Fastify({ logger: false });
  app.addHook('onRequest', (request, _reply, done) => {
    (request as unknown as { principal: object }).principal = {
      kind: 'secret_key',
      keyId: 'key_probe',
      merchantId: 'mer_probe',
    };
    done();
  });
  if (limit) await limit(app);
  app.get('/r', async () => ({ ok: true }));
  await app.ready();
  return app;
}

/** CPU per request, REQUESTS of them IN_FLIGHT at a time through `inject`. */
async function cpuPerRequest(app: Awaited<ReturnType<typeof appWith>>): Promise<number> {
  let next = 0;
  const lane = async () => {
    while (next++ < REQUESTS) {
      const r = await app.inject({ method: 'GET', url: '/r' });
      if (r.statusCode !== 200) throw new Error(`status ${r.statusCode}: ${r.body}`);
    }
  };
  const before = process.cpuUsage();
  await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
  const used = process.cpuUsage(before);
  return Math.round(((used.user + used.system) / REQUESTS) * 10) / 10;
}

async function worker(): Promise<Costs> {
  const root = join(__dirname, '..', '..');
  const { registerRateLimit } = require(join(root, 'src', 'api', 'rate-limit'));
  /* eslint-enable @typescript-eslint/no-require-imports */
  const store = new MemoryStore();
  const limited = await appWith((app) =>
    registerRateLimit(app, { store, perMinute: 1_000_000_000 }),
  );
  const none = await appWith();
  // Warm both up, then measure each twice in alternation; the lower of each pair counts.
  await cpuPerRequest(limited);
  await cpuPerRequest(none);
  const costs: Costs = { limited: Infinity, none: Infinity };
  for (let i = 0; i < 2; i += 1) {
    costs.limited = Math.min(costs.limited, await cpuPerRequest(limited));
    costs.none = Math.min(costs.none, await cpuPerRequest(none));
  }
  const headers = (await limited.inject({ method: 'GET', url: '/r' })).headers;
  if (headers['ratelimit-limit'] === undefined) throw new Error('the limiter did not answer');
  return costs;
}

function runWorker(distRoot: string): Promise<Costs> {
  return new Promise((done, fail) => {
    const child = fork(join(distRoot, 'bench', 'probe', 'rate-limit-cost.js'), ['worker'], {
      env: { ...process.env, NODE_PATH: join(__dirname, '..', '..', '..', 'node_modules') },
    });
    child.once('message', (m) => done(m as Costs));
    child.once('exit', (code) => fail(new Error(`worker ${distRoot} exited with ${code}`)));
  });
}

async function driver(): Promise<void> {
  const roots = process.argv.slice(2).map((r) => resolve(r));
  if (roots.length === 0) roots.push(join(__dirname, '..', '..'));
  const own: Record<string, number[]> = {};
  for (let round = 0; round < ROUNDS; round += 1) {
    for (let i = 0; i < roots.length; i += 1) {
      const root = roots[(round + i) % roots.length];
      const costs = await runWorker(root);
      (own[root] ??= []).push(Math.round((costs.limited - costs.none) * 10) / 10);
      process.stderr.write(`${root} round ${round}: ${JSON.stringify(costs)}\n`);
    }
  }
  for (const [root, values] of Object.entries(own)) {
    const sorted = [...values].sort((a, b) => a - b);
    const median = sorted[Math.floor(sorted.length / 2)];
    process.stderr.write(`${root}: the limiter's own CPU per request, median ${median} us `);
    process.stderr.write(`(rounds: ${values.join(', ')})\n`);
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
