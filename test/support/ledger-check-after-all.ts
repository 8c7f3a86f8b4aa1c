// After every integration and e2e test file: the ledger of every database the file created
// must still reconcile (src/reconciliation/ledger-check.ts). Registered in setupFilesAfterEnv, so it
// runs whatever the file did and in whatever order its own afterAll hooks run: it opens its
// own short-lived connection (the file's ORM or processes may be gone already; the databases
// are never dropped), and reads one snapshot, so processes still writing cannot tear it.
import { Client } from 'pg';
import { checkLedger, type LedgerViolation } from '../../src/reconciliation/ledger-check';
import { createdTestDatabases } from './db';

async function checkDatabase(url: string): Promise<LedgerViolation[] | null> {
  const client = new Client({
    connectionString: url,
    connectionTimeoutMillis: 10_000,
    statement_timeout: 30_000,
  });
  try {
    await client.connect();
  } catch (error) {
    // Dropped by the test itself: nothing left to check.
    if ((error as { code?: string }).code === '3D000') return null;
    throw error;
  }
  try {
    return await checkLedger(async (sql, params) => (await client.query(sql, params)).rows);
  } finally {
    await client.end().catch(() => undefined);
  }
}

afterAll(async () => {
  const failures: string[] = [];
  for (const url of createdTestDatabases()) {
    const violations = await checkDatabase(url);
    if (!violations || violations.length === 0) continue;
    const name = new URL(url).pathname.slice(1);
    failures.push(
      `database ${name}:\n${violations.map((v) => `  - ${v.invariant}: ${v.detail}`).join('\n')}`,
    );
  }
  if (failures.length > 0) {
    throw new Error(
      `ledger check failed after this test file (src/reconciliation/ledger-check.ts):\n${failures.join('\n')}`,
    );
  }
});
