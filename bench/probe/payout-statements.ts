/**
 * `node dist/bench/probe/payout-statements.js`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`:
 * what one AUTO_WITHDRAW deposit costs PostgreSQL from arrival to SETTLED (ingestion, FX,
 * payout creation, signing, broadcast, confirmation, with triggers, foreign-key checks and
 * Agenda's bookkeeping). On a fresh stack with the local chains and `pg_stat_statements`:
 * 1. counts every statement for PROBE_SECONDS with no deposits (the sweeps and pollers that
 *    run anyway: the background);
 * 2. counts again while sandbox deposits arrive at PROBE_RATE/s for PROBE_SECONDS over the
 *    three chains, until they are all SETTLED;
 * and prints every statement with its calls per deposit, gross and net of the background
 * (scaled to the second window's length). A tool for finding what to cut, not a benchmark.
 * PROBE_RATE (default 2) keeps each chain's signing batch at one payout: the worst case for
 * batching; PROBE_RATE=20 shows the benchmark's batching.
 */
import { Client } from 'pg';
import { untilSettledOrStuck } from '../lib/deposits-db';
import { runLoad } from '../lib/load';
import { permanentOnramp } from '../lib/merchant-api';
import { startBenchStack } from '../lib/stack';

const RATE = Number(process.env.PROBE_RATE ?? 2);
const SECONDS = Number(process.env.PROBE_SECONDS ?? 10);
/** The probe's own statements (statistics, waiting for settlement) are not the service's. */
const OWN = /pg_stat_statements|bank_reference like/;

type Counts = Map<string, { calls: number; ms: number }>;

/**
 * Agenda's NOTIFYs carry their payload literally, so each is its own row: one row per channel,
 * event type and job instead.
 */
function normalized(query: string): string {
  const notify = /^NOTIFY "([^"]+)", '(.*)'$/.exec(query);
  if (!notify) return query;
  const type = /"type":"(\w+)"/.exec(notify[2])?.[1];
  const job = /"jobName":"([\w-]+)"/.exec(notify[2])?.[1];
  return `NOTIFY "${notify[1]}" (${[type, job].filter(Boolean).join(', ')})`;
}

async function counts(client: Client): Promise<Counts> {
  const { rows } = await client.query<{ calls: string; ms: string; query: string }>(
    `select sum(calls)::text as calls, sum(total_exec_time)::text as ms,
            regexp_replace(query, '\\s+', ' ', 'g') as query
       from pg_stat_statements group by 3`,
  );
  const counted: Counts = new Map();
  for (const row of rows.filter((r) => !OWN.test(r.query))) {
    const key = normalized(row.query);
    const sum = counted.get(key) ?? { calls: 0, ms: 0 };
    counted.set(key, { calls: sum.calls + Number(row.calls), ms: sum.ms + Number(row.ms) });
  }
  return counted;
}

async function main(): Promise<void> {
  const bench = await startBenchStack({
    chains: true,
    postgresSettings: {
      shared_preload_libraries: 'pg_stat_statements',
      // Statements run by triggers and functions too (ledger checks, outbox, NOTIFY).
      'pg_stat_statements.track': 'all',
      'pg_stat_statements.max': '10000',
    },
  });
  const client = new Client({ connectionString: bench.databaseUrl });
  try {
    const accounts = await Promise.all(
      (['BASE', 'ETHEREUM', 'POLYGON'] as const).map((chain) =>
        permanentOnramp(bench.stack.url, bench.merchant.api_key, {
          mode: 'AUTO_WITHDRAW',
          asset: 'USDC',
          chain,
          destination_address: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
        }),
      ),
    );
    await client.connect();
    await client.query('create extension if not exists pg_stat_statements');
    // Let the processes settle into their steady polling before counting the background.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    await client.query('select pg_stat_statements_reset()');
    const idleStarted = Date.now();
    await new Promise((resolve) => setTimeout(resolve, SECONDS * 1000));
    const idle = await counts(client);
    const idleMs = Date.now() - idleStarted;

    await client.query('select pg_stat_statements_reset()');
    const started = Date.now();
    const load = await runLoad({
      baseUrl: bench.stack.url,
      durationMs: SECONDS * 1000,
      rate: RATE,
      concurrency: 20,
      requests: accounts.map((account_number) => ({
        method: 'POST',
        path: '/v1/sandbox/deposits',
        headers: { authorization: `Bearer ${bench.merchant.api_key}` },
        body: { account_number, amount_ngn: '1600', bank_reference: 'probe-{{n}}' },
      })),
    });
    const deposits = load.statuses['201'] ?? 0;
    await untilSettledOrStuck(bench.databaseUrl, 'probe-', deposits, 60_000);
    const busy = await counts(client);
    const busyMs = Date.now() - started;
    const scale = busyMs / idleMs;

    const fmt = (value: number) => (value / deposits).toFixed(2).padStart(7);
    const rows = [...busy].map(([query, c]) => {
      const background = (idle.get(query)?.calls ?? 0) * scale;
      return { query, calls: c.calls, net: c.calls - background, ms: c.ms };
    });
    rows.sort((a, b) => b.net - a.net);
    console.log(
      `${deposits} AUTO_WITHDRAW deposits at ${RATE}/s, all settled ${(busyMs / 1000).toFixed(1)} s ` +
        `after the first; background counted over ${(idleMs / 1000).toFixed(1)} s idle and scaled`,
    );
    console.log('per deposit: calls, calls net of the background, execution ms, statement');
    for (const row of rows) {
      if (row.calls / deposits < 0.005) continue;
      console.log(`${fmt(row.calls)} ${fmt(row.net)} ${fmt(row.ms)}  ${row.query.slice(0, 200)}`);
    }
    const sum = (key: 'calls' | 'net' | 'ms') => rows.reduce((s, r) => s + r[key], 0);
    console.log(`${fmt(sum('calls'))} ${fmt(sum('net'))} ${fmt(sum('ms'))}  (all)`);
    const idleCalls = [...idle.values()].reduce((s, c) => s + c.calls, 0);
    console.log(
      `background: ${((idleCalls / idleMs) * 1000).toFixed(1)} statements per second idle`,
    );
  } finally {
    await client.end().catch(() => undefined);
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
