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
