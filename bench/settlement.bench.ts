import { Client } from 'pg';
import type { Benchmark } from './benchmarks';
import { settleLatenciesMs, untilSettledOrStuck } from './lib/deposits-db';
import { runLoad } from './lib/load';
import { permanentOnramp } from './lib/merchant-api';
import type { Row } from './lib/results';
import { cpuMs, treeCpuMs } from './lib/cpu';
import { bareNodeResidentMb, sampleResident } from './lib/rss';
import { startBenchStack, type BenchStack } from './lib/stack';
import { percentile, round } from './lib/stats';

/** `BENCH_QUICK=1` shortens every phase (for working on a benchmark, not for its figures). */
const QUICK = process.env.BENCH_QUICK === '1';
export const seconds = (full: number) => (QUICK ? Math.max(3, Math.round(full / 6)) : full) * 1000;

/** Open-loop transfers to these accounts at `rate`/s; references `<prefix><n>`. */
export async function transfers(
  bench: BenchStack,
  accounts: string[],
  prefix: string,
  rate: number,
  durationMs: number,
) {
  return runLoad(
    {
      baseUrl: bench.stack.url,
      durationMs,
      rate,
      concurrency: 200,
      requests: accounts.map((account_number) => ({
        method: 'POST',
        path: '/v1/sandbox/deposits',
        headers: { authorization: `Bearer ${bench.merchant.api_key}` },
        // 1,600 NGN (about 1 USD), above the 1,500 NGN minimum deposit.
        body: { account_number, amount_ngn: '1600', bank_reference: `${prefix}{{n}}` },
      })),
    },
    2,
  );
}

/** Latencies (created to SETTLED) of the transfers of one phase, once they have all moved. */
async function phase(
  bench: BenchStack,
  accounts: string[],
  prefix: string,
  rate: number,
  durationMs: number,
  waitMs: number,
) {
  const load = await transfers(bench, accounts, prefix, rate, durationMs);
  const accepted = load.statuses['201'] ?? 0;
  await untilSettledOrStuck(bench.databaseUrl, prefix, accepted, waitMs);
  const { latencies, byStatus } = await settleLatenciesMs(bench.databaseUrl, prefix);
  const refused = load.latenciesMs.length - accepted + load.errors + load.skipped;
  const unsettled = Object.entries(byStatus).filter(([s]) => s !== 'SETTLED');
  const note =
    [
      refused
        ? `${refused} transfers not accepted (${JSON.stringify(load.statuses)}, ${load.skipped} skipped)`
        : '',
      unsettled.length ? `not SETTLED: ${JSON.stringify(Object.fromEntries(unsettled))}` : '',
    ]
      .filter(Boolean)
      .join('; ') || undefined;
  // Offered: the transfers the generator really sent (answered or failed); `skipped` are
  // arrivals it could not send in time (all sockets busy), which the service never saw.
  const offered = load.latenciesMs.length + load.errors;
  return {
    latencies,
    accepted,
    offered,
    skipped: load.skipped,
    rate: round(accepted / (load.elapsedMs / 1000), 1),
    httpP99: round(percentile(load.latenciesMs, 99)),
    note,
  };
}

/** Offered arrival rate of the loaded phase (issue 38: twice the 100/s of DESIGN.md). */
const LOAD_RATE = Number(process.env.BENCH_SETTLE_RATE ?? 200);

/** Top-level statements the service sent PostgreSQL so far, by statement (pg_stat_statements). */
async function statementsSoFar(databaseUrl: string): Promise<Map<string, number>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ query: string; calls: string }>(
      `select left(regexp_replace(s.query, '\\s+', ' ', 'g'), 60) as query, sum(s.calls)::text as calls
         from pg_stat_statements s join pg_database d on d.oid = s.dbid
        where d.datname = current_database() group by 1`,
    );
    return new Map(rows.map((r) => [r.query, Number(r.calls)]));
  } finally {
    await client.end();
  }
}

/** Statements per deposit between two snapshots: the total, and the most frequent ones. */
function statementsPerDeposit(
  before: Map<string, number>,
  after: Map<string, number>,
  deposits: number,
): { total: number; top: string } {
  const per = [...after].map(([query, calls]) => ({
    query,
    n: (calls - (before.get(query) ?? 0)) / Math.max(1, deposits),
  }));
  const total = round(
    per.reduce((sum, s) => sum + s.n, 0),
    1,
  );
  const top = per
    .filter((s) => s.n >= 0.05)
    .sort((x, y) => y.n - x.n)
    .slice(0, 8)
    .map((s) => `${round(s.n, 2)} "${s.query}"`)
    .join(', ');
  return { total, top };
}

export const settleBalanceBenchmark: Benchmark = {
  name: 'settle-balance',
  description: `MERCHANT_BALANCE deposit (POST /v1/sandbox/deposits) to SETTLED at ${LOAD_RATE} deposits/s for 60 s; CPU and statements per deposit; resident memory of both processes under that load`,
  async run(): Promise<Row[]> {
    // pg_stat_statements counts the statements per deposit (top level: what the processes
    // send; their triggers' statements are inside those).
    const bench = await startBenchStack({
      postgresSettings: {
        shared_preload_libraries: 'pg_stat_statements',
        'pg_stat_statements.track': 'top',
      },
      // 12,000 transfers of 1,600 NGN (about 1 USD) in a minute pass the default merchant
      // limit of 10,000 USD a day, and the limit would flag what this figure is about.
      env: { MERCHANT_DAILY_LIMIT_USD: '1000000' },
    });
    try {
      // Transfers from 20 end users: each onramp's row lock serialises its own transfers, and
      // one user sending 100 transfers a second is not the load this figure is about.
      const accounts = await Promise.all(
        Array.from({ length: 20 }, () => permanentOnramp(bench.stack.url, bench.merchant.api_key)),
      );
      // Baseline: the same path, unloaded (5/s).
      const idle = await phase(bench, accounts, 'IDLE-', 5, seconds(10), 30_000);
      const rss = sampleResident({
        gateway: bench.stack.gateways[0].child.pid!,
        runner: bench.stack.runners[0].child.pid!,
      });
      const gatewayPid = bench.stack.gateways[0].child.pid!;
      const runnerPid = bench.stack.runners[0].child.pid!;
      const admin = new Client({ connectionString: bench.databaseUrl });
      await admin.connect();
      await admin
        .query('create extension if not exists pg_stat_statements')
        .finally(() => admin.end());
      const statementsBefore = await statementsSoFar(bench.databaseUrl);
      const cpuBefore = [cpuMs(gatewayPid), cpuMs(runnerPid), treeCpuMs(bench.postgresPid)];
      const loaded = await phase(bench, accounts, 'LOAD-', LOAD_RATE, seconds(60), 120_000);
      const statements = statementsPerDeposit(
        statementsBefore,
        await statementsSoFar(bench.databaseUrl),
        loaded.accepted,
      );
      const peaks = rss.stop();
      // CPU each deposit cost, from load start until all were settled: on 2 cores shared by
      // all three (and the load generators), this is what bounds the sustainable rate.
      const [gatewayCpu, runnerCpu, postgresCpu] = [
        cpuMs(gatewayPid),
        cpuMs(runnerPid),
        treeCpuMs(bench.postgresPid),
      ].map((after, i) => round((after - cpuBefore[i]) / Math.max(1, loaded.accepted), 1));
      const bare = round(await bareNodeResidentMb());
      const row = (figure: string, p: number): Row => ({
        benchmark: 'settle-balance',
        figure,
        unit: 'ms',
        target: 1000,
        better: 'lower',
        measured: round(percentile(loaded.latencies, p)),
        baseline: round(percentile(idle.latencies, p)),
        baselineIs: '5/s',
        note:
          p === 99
            ? `${loaded.accepted} deposits at ${loaded.rate}/s sent, HTTP p99 ${loaded.httpP99} ms${loaded.note ? `; ${loaded.note}` : ''}`
            : undefined,
      });
      const memory = (name: 'gateway' | 'runner'): Row => ({
        benchmark: 'memory',
        figure: `${name} peak resident (settle-balance load)`,
        unit: 'MB',
        target: 200,
        better: 'lower',
        measured: round(peaks[name]),
        baseline: bare,
        baselineIs: 'bare node http',
      });
      const arrival: Row = {
        benchmark: 'settle-balance',
        figure: `transfers accepted / offered (${LOAD_RATE}/s)`,
        unit: '',
        target: 0.99,
        better: 'higher',
        measured: round(loaded.accepted / Math.max(1, loaded.offered), 3),
        baseline: null,
        baselineIs: '',
        note:
          `${loaded.accepted} accepted of ${loaded.offered} sent (${loaded.rate}/s)` +
          `${loaded.skipped ? `; ${loaded.skipped} arrivals the generator could not send in time` : ''}`,
      };
      const cpu: Row = {
        benchmark: 'settle-balance',
        figure: `CPU per deposit, gateway + runner + PostgreSQL (${LOAD_RATE}/s)`,
        unit: 'ms',
        target: 8,
        better: 'lower',
        measured: round(gatewayCpu + runnerCpu + postgresCpu, 1),
        baseline: null,
        baselineIs: '',
        note: `gateway ${gatewayCpu} ms, job runner ${runnerCpu} ms, PostgreSQL ${postgresCpu} ms`,
      };
      const perDeposit: Row = {
        benchmark: 'settle-balance',
        figure: `statements per deposit (${LOAD_RATE}/s)`,
        unit: '',
        target: 20,
        better: 'lower',
        measured: statements.total,
        baseline: null,
        baselineIs: '',
        note:
          'top-level statements the processes sent (pg_stat_statements), rates and listeners ' +
          `included; the most frequent, per deposit: ${statements.top}`,
      };
      return [
        arrival,
        row(`p50 @${LOAD_RATE}/s`, 50),
        row(`p99 @${LOAD_RATE}/s`, 99),
        cpu,
        perDeposit,
        memory('gateway'),
        memory('runner'),
      ];
    } finally {
      await bench.stop();
    }
  },
};
