/**
 * `node dist/bench/probe/rate-limit-unlogged.js`, after `npm run build` and
 * `npx tsc -p tsconfig.bench.json`: whether an UNLOGGED `rate_limit_windows` would make the
 * shared count cheaper. A fresh embedded PostgreSQL, migrated, gets an UNLOGGED copy of the
 * table beside the real one; the store's exact upsert (src/system/rate-limit-windows.ts,
 * `synchronous_commit` off for its transaction) then runs against each in turn, ROUNDS times
 * interleaved, from a pool of 10 connections with 16 in flight over BUCKETS keys. Prints
 * PostgreSQL's CPU (server and backends) and the wall time per upsert for each table.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Pool } from 'pg';
import { spawnEmbeddedPostgres } from '../../src/embedded/pg-process';
import { treeCpuMs } from '../lib/cpu';
import { freePort, ROOT } from '../lib/stack';

const ROUNDS = Number(process.env.PROBE_ROUNDS ?? 7);
const UPSERTS = Number(process.env.PROBE_UPSERTS ?? 20_000);
const BUCKETS = 8;
const IN_FLIGHT = 16;

const upsert = (table: string) =>
  `insert into ${table} (bucket, window_start, hits)
     select $1::text, $2::timestamptz, $3::integer
       from (select set_config('synchronous_commit', 'off', true)) as async_commit
     on conflict (bucket, window_start) do update set hits = ${table}.hits + excluded.hits
     returning hits`;

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'onramp-probe-pg-'));
  const postgres = await spawnEmbeddedPostgres({
    dataDir,
    port: await freePort(),
    database: 'onramp_probe',
    persistent: false,
  });
  const pool = new Pool({ connectionString: postgres.url, max: 10 });
  try {
    execFileSync(process.execPath, [join(ROOT, 'bin', 'onramp.js'), 'db', 'migrate'], {
      env: { PATH: process.env.PATH, DATABASE_URL: postgres.url, LOG_LEVEL: 'silent' },
      stdio: 'pipe',
    });
    await pool.query(
      'create unlogged table rate_limit_windows_unlogged (like rate_limit_windows including all)',
    );
    const tables = ['rate_limit_windows', 'rate_limit_windows_unlogged'];
    const results: Record<string, { cpuUs: number[]; wallUs: number[] }> = {};
    for (let round = 0; round < ROUNDS; round += 1) {
      for (let i = 0; i < tables.length; i += 1) {
        const table = tables[(round + i) % tables.length];
        const sql = upsert(table);
        const windowStart = new Date(Date.UTC(2026, 10, 28, 0, round));
        let next = 0;
        const lane = async () => {
          while (next < UPSERTS) {
            const n = next++;
            await pool.query(sql, [`key:probe-${n % BUCKETS}`, windowStart, 1]);
          }
        };
        const cpuBefore = treeCpuMs(postgres.child.pid!);
        const wallBefore = process.hrtime.bigint();
        await Promise.all(Array.from({ length: IN_FLIGHT }, lane));
        const wallUs = Number(process.hrtime.bigint() - wallBefore) / 1000 / UPSERTS;
        const cpuUs = ((treeCpuMs(postgres.child.pid!) - cpuBefore) * 1000) / UPSERTS;
        (results[table] ??= { cpuUs: [], wallUs: [] }).cpuUs.push(Math.round(cpuUs));
        results[table].wallUs.push(Math.round(wallUs));
        process.stderr.write(`${table} round ${round}: PostgreSQL ${Math.round(cpuUs)} us, `);
        process.stderr.write(`wall ${Math.round(wallUs)} us per upsert\n`);
      }
    }
    const median = (v: number[]) => [...v].sort((a, b) => a - b)[Math.floor(v.length / 2)];
    for (const [table, r] of Object.entries(results)) {
      process.stderr.write(
        `${table}: median PostgreSQL CPU ${median(r.cpuUs)} us, wall ${median(r.wallUs)} us per upsert\n`,
      );
    }
  } finally {
    await pool.end();
    await postgres.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
