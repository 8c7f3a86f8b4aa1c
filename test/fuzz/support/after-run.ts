import { Client } from 'pg';
import { request } from '../../support/http';
import type { FuzzWorld } from './world';

/** A normal read after the storm: well inside this, on a loaded 2-core machine. */
const NORMAL_READ_MS = 2_000;

async function rows(databaseUrl: string, sql: string): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql)).rows;
  } finally {
    await client.end();
  }
}

/**
 * After a fuzz run: both processes answer /health, a normal read answers quickly and correctly,
 * and nothing is half-written. The ledger check (run after every file) covers money, deposits
 * and their events; this adds what it does not: idempotency keys left IN_PROGRESS (a request
 * that died mid-way), and onramps without their virtual-account hand-out.
 */
export async function assertStillServing(world: FuzzWorld): Promise<void> {
  const { stack, a, databaseUrl } = world;
  const health = await request(stack.url, 'GET', '/health');
  expect(health.status).toBe(200);
  for (const runner of stack.runners) {
    const runnerHealth = await fetch(runner.metricsUrl!.replace(/\/metrics$/, '/health'));
    expect(runnerHealth.status).toBe(200);
  }
  for (const child of [...stack.gateways, ...stack.runners].map((p) => p.child)) {
    expect({ exitCode: child.exitCode, signal: child.signalCode }).toEqual({
      exitCode: null,
      signal: null,
    });
  }

  const started = Date.now();
  const read = await request(stack.url, 'GET', `/v1/deposits/${a.depositIds[0]}`, {
    key: a.apiKey,
  });
  expect(read.status).toBe(200);
  expect(read.body.deposit_id).toBe(a.depositIds[0]);
  expect(Date.now() - started).toBeLessThan(NORMAL_READ_MS);

  expect(
    await rows(
      databaseUrl,
      "select merchant_id, key, path from idempotency_keys where state = 'IN_PROGRESS'",
    ),
  ).toEqual([]);
  expect(
    await rows(
      databaseUrl,
      `select o.id from onramps o
        where (select count(*) from virtual_account_assignments v where v.onramp_id = o.id) <> 1`,
    ),
  ).toEqual([]);
}
