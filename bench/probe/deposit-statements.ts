/**
 * `node dist/bench/probe/deposit-statements.js`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`:
 * what one MERCHANT_BALANCE deposit costs PostgreSQL. Sends sandbox deposits one at a time
 * for a few seconds on a fresh stack whose server has `pg_stat_statements` loaded, waits for
 * their settlement, and prints every statement with its calls and execution time per deposit
 * (gateway, job runner and triggers together). A tool for finding what to cut, not a
 * benchmark: the statistics themselves cost a little.
 */
import { Client } from 'pg';
import { runLoad } from '../lib/load';
import { permanentOnramp } from '../lib/merchant-api';
import { startBenchStack } from '../lib/stack';

const SHOWN = 60;

async function main(): Promise<void> {
  const bench = await startBenchStack({
    postgresSettings: {
      shared_preload_libraries: 'pg_stat_statements',
      // Statements run by triggers and functions too (ledger checks, outbox, NOTIFY).
      'pg_stat_statements.track': 'all',
    },
  });
  const client = new Client({ connectionString: bench.databaseUrl });
  try {
    const accounts = await Promise.all(
      Array.from({ length: 20 }, () => permanentOnramp(bench.stack.url, bench.merchant.api_key)),
    );
    await client.connect();
    await client.query('create extension if not exists pg_stat_statements');
    await client.query('select pg_stat_statements_reset()');
    const load = await runLoad({
      baseUrl: bench.stack.url,
      durationMs: 6000,
      concurrency: 1,
      requests: accounts.map((account_number) => ({
        method: 'POST',
        path: '/v1/sandbox/deposits',
        headers: { authorization: `Bearer ${bench.merchant.api_key}` },
        body: { account_number, amount_ngn: '1600', bank_reference: 'probe-{{n}}' },
      })),
    });
    // Settlement runs after the answer; give it time to finish.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const deposits = load.statuses['201'] ?? 0;
    const { rows } = await client.query<{ calls: string; ms: string; query: string }>(
      `select calls, total_exec_time as ms, regexp_replace(query, '\\s+', ' ', 'g') as query
         from pg_stat_statements order by total_exec_time desc`,
    );
    const per = (value: string | number) => (Number(value) / deposits).toFixed(2).padStart(7);
    console.log(`${deposits} deposits; per deposit: calls, execution ms, statement`);
    for (const row of rows.slice(0, SHOWN)) {
      console.log(`${per(row.calls)} ${per(row.ms)}  ${row.query.slice(0, 160)}`);
    }
    const calls = rows.reduce((sum, row) => sum + Number(row.calls), 0);
    const ms = rows.reduce((sum, row) => sum + Number(row.ms), 0);
    console.log(`${per(calls)} ${per(ms)}  (all ${rows.length} statements)`);
  } finally {
    await client.end().catch(() => undefined);
    await bench.stop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
