/**
 * Reads: REST `GET /v1/deposits/{id}` and GraphQL `deposit(id)` against a bare node:http +
 * `pg` handler running the same SQL statements (bench/lib/bare-deposit-server.ts). DESIGN.md
 * targets: REST at least 0.8x and GraphQL at least 0.7x the bare handler's throughput, and at
 * 500 req/s a p99 at most 2x the bare handler's p99 in the same run.
 *
 * Seed: one MERCHANT_BALANCE onramp over REST and DEPOSITS sandbox transfers into it, waited
 * for until SETTLED, so every read returns a settled deposit; every request rotates over them.
 *
 * Measure, for bare, REST and GraphQL: max throughput in a closed loop (CONCURRENCY sockets
 * over WORKERS load processes, after a warm-up), then latency at an open-loop RATE req/s
 * (counted from each request's due time). The machine is shared (2 cores, and whatever else
 * runs), so each phase is ROUNDS rounds of one SLICE per target, in a rotating order, and each
 * figure pools its target's slices: a disturbance hits all three alike instead of whichever ran
 * at that moment. Every response must be a 200 with the settled deposit (GraphQL: no `errors`);
 * anything else is counted in the row's note.
 *
 * `BENCH_QUICK=1` shortens every phase; `BENCH_PROFILE_DIR` profiles the gateway (bench/README.md).
 */
import { fork, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import type { Benchmark } from './benchmarks';
import type { BareServerSpec } from './lib/bare-deposit-server';
import { runLoad, type RequestTemplate } from './lib/load';
import { api } from './lib/merchant-api';
import type { Row } from './lib/results';
import { startBenchStack, type BenchStack } from './lib/stack';
import { percentile, round } from './lib/stats';

const NAME = 'reads';
const QUICK = process.env.BENCH_QUICK === '1';
const DEPOSITS = QUICK ? 50 : 300;
const WORKERS = 2;
const CONCURRENCY = 32;
const WARMUP_MS = QUICK ? 1_000 : 2_000;
/** Each phase: ROUNDS x SLICE_MS per target (8 s each in all). */
const ROUNDS = QUICK ? 1 : 4;
const SLICE_MS = QUICK ? 2_000 : 2_000;
const RATE = 500;
/** Open loop: sockets enough that a slow answer delays only itself; a skipped send is reported. */
const RATE_SOCKETS = 256;
/**
 * Open loop: one load process is plenty for 500/s, and with two, the second one's start-up
 * (tens of ms of CPU on this 2-core machine) lands inside the first one's measurement: a
 * latency spike at the start of every slice, enough to move a p99.
 */
const RATE_WORKERS = 1;
/** The gateway's pool (bench/lib/stack.ts: DB_POOL_MAX=10): the bare handler gets the same. */
const POOL_MAX = 10;
/** DESIGN.md: p99 at most this many times the bare handler's p99 at the same rate. */
const P99_TARGET_RATIO = 2;
/** DESIGN.md: throughput at least this share of the bare handler's, per target. */
const THROUGHPUT_TARGET_RATIO = { rest: 0.8, graphql: 0.7 } as const;

/** Every field of the GraphQL Deposit (the same set REST returns, plus `id`). */
const GQL_DEPOSIT_QUERY = `query Deposit($id: ID!) {
  deposit(id: $id) {
    id depositId onrampId merchantId paymentReference userEmail amountNgn bankReference rateId
    amountAsset asset chain txHash status failureReason flagReason createdAt settledAt updatedAt
  }
}`;

// Bodies are whatever the server answered; checked by hand below.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

async function until<T>(
  what: string,
  check: () => Promise<T | undefined>,
  timeoutMs: number,
): Promise<T> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const value = await check().catch(() => undefined);
    if (value !== undefined) return value;
    if (performance.now() > deadline) throw new Error(`${what}: not within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** A MERCHANT_BALANCE onramp and DEPOSITS transfers into it, all SETTLED; their ids. */
async function seed(bench: BenchStack): Promise<string[]> {
  const { url } = bench.stack;
  const key = bench.merchant.api_key;
  const rate = await until(
    'a rate',
    async () => {
      const r = await api<{ rate_id: string }>(url, key, 'GET', '/v1/rates?from=NGN&to=USDC');
      return r.status === 200 ? r.body : undefined;
    },
    30_000,
  );
  const onramp = await api<Json>(url, key, 'POST', '/v1/onramp', {
    type: 'EPHEMERAL',
    rate_id: rate.rate_id,
    user: { email: 'bench@example.com' },
    settlement: { mode: 'MERCHANT_BALANCE' },
  });
  if (onramp.status !== 201) {
    throw new Error(`POST /v1/onramp answered ${onramp.status}: ${JSON.stringify(onramp.body)}`);
  }
  const account = onramp.body.virtual_account.account_number as string;
  const ids: string[] = [];
  let next = 0;
  const transfer = async () => {
    while (next < DEPOSITS) {
      const i = next++;
      const r = await api<Json>(url, key, 'POST', '/v1/sandbox/deposits', {
        account_number: account,
        amount_ngn: '15000',
        bank_reference: `BENCH-READS-${i}`,
      });
      if (r.status !== 201) {
        throw new Error(`sandbox deposit answered ${r.status}: ${JSON.stringify(r.body)}`);
      }
      ids.push(r.body.deposit_id as string);
    }
  };
  await Promise.all(Array.from({ length: 8 }, transfer));
  await until(
    `${DEPOSITS} SETTLED deposits`,
    async () => {
      const r = await api<Json>(url, key, 'GET', '/v1/deposits?status=SETTLED&per_page=1');
      return r.status === 200 && r.body.pagination.total === DEPOSITS ? true : undefined;
    },
    60_000,
  );
  return ids;
}

async function startBare(databaseUrl: string): Promise<{ url: string; child: ChildProcess }> {
  const child = fork(join(__dirname, 'lib', 'bare-deposit-server.js'), [], { stdio: 'inherit' });
  const url = await new Promise<string>((resolve, reject) => {
    child.once('message', (m) => resolve((m as { url: string }).url));
    child.once('exit', (code) => reject(new Error(`bare deposit server exited with ${code}`)));
    child.send({ databaseUrl, poolMax: POOL_MAX, protocol: 'simple' } satisfies BareServerSpec);
  });
  return { url, child };
}

function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
  });
}

interface Target {
  label: string;
  baseUrl: string;
  requests: RequestTemplate[];
  /** Is this response body the settled deposit? (Statuses are counted apart.) */
  good(body: string): boolean;
}

type LoadResult = Awaited<ReturnType<typeof runLoad>>;

/** One target's slices of one phase, pooled. */
interface Pooled {
  latenciesMs: number[];
  requests: number;
  elapsedMs: number;
  /** Throughput of each slice (req/s), in round order. */
  slices: number[];
  problems: string[];
}

/** Statuses other than 200, transport errors, skipped sends and wrong bodies, as text. */
function problemsOf(target: Target, result: LoadResult): string[] {
  const out: string[] = [];
  const bad = Object.entries(result.statuses).filter(([s]) => s !== '200');
  if (bad.length) out.push(`statuses ${bad.map(([s, n]) => `${s} x${n}`).join(', ')}`);
  if (result.errors) out.push(`${result.errors} transport errors`);
  if (result.skipped) out.push(`${result.skipped} sends skipped (all sockets busy)`);
  const wrong = result.bodies.filter((b) => !target.good(b)).length;
  if (wrong) out.push(`${wrong} of ${result.bodies.length} bodies not the settled deposit`);
  return out;
}

/**
 * ROUNDS rounds of one slice per target (the order rotating each round), pooled per target.
 * `rate` absent: closed loop at CONCURRENCY; present: open loop at that rate.
 */
async function interleaved<K extends string>(
  all: Record<K, Target>,
  phase: string,
  rate?: number,
): Promise<Record<K, Pooled>> {
  const names = Object.keys(all) as K[];
  const pooled = {} as Record<K, Pooled>;
  for (const name of names) {
    pooled[name] = { latenciesMs: [], requests: 0, elapsedMs: 0, slices: [], problems: [] };
  }
  for (let r = 0; r < ROUNDS; r += 1) {
    for (let i = 0; i < names.length; i += 1) {
      const name = names[(r + i) % names.length];
      const target = all[name];
      const result = await runLoad(
        {
          baseUrl: target.baseUrl,
          requests: target.requests,
          durationMs: SLICE_MS,
          concurrency: rate ? RATE_SOCKETS : CONCURRENCY,
          rate,
        },
        rate ? RATE_WORKERS : WORKERS,
      );
      const p = pooled[name];
      for (const latency of result.latenciesMs) p.latenciesMs.push(latency);
      p.requests += result.latenciesMs.length;
      p.elapsedMs += result.elapsedMs;
      p.slices.push(Math.round(result.throughput));
      p.problems.push(...problemsOf(target, result).map((text) => `${phase}: ${text}`));
    }
  }
  return pooled;
}

const throughputOf = (p: Pooled) => (p.requests / p.elapsedMs) * 1000;

function targets(
  gatewayUrl: string,
  bareUrl: string,
  key: string,
  ids: string[],
): Record<'bare' | 'rest' | 'graphql', Target> {
  const authorization = `Bearer ${key}`;
  const isSettledDeposit = (d: Json, idField: string) =>
    d && typeof d[idField] === 'string' && d.status === 'SETTLED';
  const restGood = (body: string) => {
    try {
      return isSettledDeposit(JSON.parse(body), 'deposit_id');
    } catch {
      return false;
    }
  };
  return {
    bare: {
      label: 'bare',
      baseUrl: bareUrl,
      requests: ids.map((id) => ({
        method: 'GET',
        path: `/deposits/${id}`,
        headers: { authorization },
      })),
      good: restGood,
    },
    rest: {
      label: 'REST',
      baseUrl: gatewayUrl,
      requests: ids.map((id) => ({
        method: 'GET',
        path: `/v1/deposits/${id}`,
        headers: { authorization },
      })),
      good: restGood,
    },
    graphql: {
      label: 'GraphQL',
      baseUrl: gatewayUrl,
      requests: ids.map((id) => ({
        method: 'POST',
        path: '/graphql',
        headers: { authorization },
        body: { query: GQL_DEPOSIT_QUERY, variables: { id } },
      })),
      good: (body) => {
        try {
          const parsed = JSON.parse(body) as Json;
          return parsed.errors === undefined && isSettledDeposit(parsed.data?.deposit, 'depositId');
        } catch {
          return false;
        }
      },
    },
  };
}

export const readsBenchmark: Benchmark = {
  name: NAME,
  description: `GET /v1/deposits/{id} and GraphQL deposit(id) vs a bare node:http + pg handler (same SQL): throughput at ${CONCURRENCY} sockets, p99 at ${RATE}/s`,
  async run(): Promise<Row[]> {
    const bench = await startBenchStack();
    let bare: { url: string; child: ChildProcess } | undefined;
    try {
      const ids = await seed(bench);
      bare = await startBare(bench.databaseUrl);
      const all = targets(bench.stack.url, bare.url, bench.merchant.api_key, ids);
      // Sanity: one read each, before any load.
      for (const target of Object.values(all)) {
        const t = target.requests[0];
        const response = await fetch(`${target.baseUrl}${t.path}`, {
          method: t.method,
          headers: { ...t.headers, 'content-type': 'application/json' },
          body: t.body === undefined ? undefined : JSON.stringify(t.body),
        });
        const text = await response.text();
        if (response.status !== 200 || !target.good(text)) {
          throw new Error(`${target.label} read answered ${response.status}: ${text}`);
        }
      }
      // Warm-up (JIT, pools, connections), then the two interleaved phases.
      for (const target of Object.values(all)) {
        await runLoad(
          {
            baseUrl: target.baseUrl,
            requests: target.requests,
            durationMs: WARMUP_MS,
            concurrency: CONCURRENCY,
          },
          WORKERS,
        );
      }
      const closed = await interleaved(all, 'closed loop');
      const open = await interleaved(all, `${RATE}/s`, RATE);
      const bareThroughput = throughputOf(closed.bare);
      const bareRateP99 = percentile(open.bare.latenciesMs, 99);
      const bareProblems = [...closed.bare.problems, ...open.bare.problems];
      const rows: Row[] = [];
      for (const name of ['rest', 'graphql'] as const) {
        const label = all[name].label;
        const c = closed[name];
        const o = open[name];
        const problems = [...c.problems, ...o.problems, ...bareProblems.map((p) => `bare ${p}`)];
        const issues = problems.length ? `; PROBLEMS: ${problems.join('; ')}` : '';
        const sliceRatios = c.slices.map((x, i) => round(x / closed.bare.slices[i], 2));
        rows.push(
          {
            benchmark: NAME,
            figure: `${label} throughput vs bare`,
            unit: 'req/s',
            target: round(bareThroughput * THROUGHPUT_TARGET_RATIO[name], 0),
            better: 'higher',
            measured: round(throughputOf(c), 0),
            baseline: round(bareThroughput, 0),
            baselineIs: 'bare node:http + pg, same SQL',
            note:
              `target = ${THROUGHPUT_TARGET_RATIO[name]} x bare; closed loop, ${CONCURRENCY} sockets, ` +
              `${ROUNDS} x ${SLICE_MS / 1000} s interleaved with bare (ratio per round ` +
              `${sliceRatios.join(', ')}); p50/p99 ${round(percentile(c.latenciesMs, 50))}/` +
              `${round(percentile(c.latenciesMs, 99))} ms (bare ` +
              `${round(percentile(closed.bare.latenciesMs, 50))}/` +
              `${round(percentile(closed.bare.latenciesMs, 99))} ms)${issues}`,
          },
          {
            benchmark: NAME,
            figure: `${label} p99 @${RATE}/s`,
            unit: 'ms',
            target: round(bareRateP99 * P99_TARGET_RATIO),
            better: 'lower',
            measured: round(percentile(o.latenciesMs, 99)),
            baseline: round(bareRateP99),
            baselineIs: `bare p99 @${RATE}/s`,
            note:
              `target = ${P99_TARGET_RATIO} x bare p99; open loop, ${ROUNDS} x ${SLICE_MS / 1000} s interleaved with bare, latency from ` +
              `each request's due time; p50 ${round(percentile(o.latenciesMs, 50))} ms (bare ` +
              `${round(percentile(open.bare.latenciesMs, 50))} ms); max ` +
              `${round(Math.max(...o.latenciesMs))} ms; ${round(throughputOf(o), 0)} req/s ` +
              `answered${issues}`,
          },
        );
      }
      return rows;
    } finally {
      if (bare) await stopChild(bare.child);
      await bench.stop();
    }
  },
};
