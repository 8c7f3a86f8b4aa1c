import { Client } from 'pg';
import { eventually } from './stack';

/** One query against a test database (e2e tests look at what the processes wrote). */
export async function sql<T = Record<string, unknown>>(
  databaseUrl: string,
  text: string,
  params: unknown[] = [],
): Promise<T[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(text, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** The event kinds a deposit's status entries wrote, oldest first. */
export async function eventKinds(databaseUrl: string, depositId: string): Promise<string[]> {
  const rows = await sql<{ kind: string }>(
    databaseUrl,
    'select kind from events where deposit_id = $1 order by seq',
    [depositId],
  );
  return rows.map((e) => e.kind);
}

/** Waits until every deposit in the database is SETTLED (crash tests: nothing left behind). */
export async function untilAllSettled(databaseUrl: string, everyMs = 250): Promise<void> {
  await eventually(
    async () => {
      const [{ open }] = await sql<{ open: number }>(
        databaseUrl,
        "select count(*)::int as open from deposits where status <> 'SETTLED'",
      );
      return open === 0 ? true : undefined;
    },
    90_000,
    everyMs,
  );
}
