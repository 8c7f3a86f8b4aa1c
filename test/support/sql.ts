import { Client } from 'pg';

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
