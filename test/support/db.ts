import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/db/orm';

function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is not set: run through jest (global setup)');
  return url;
}

export async function adminQuery<T = unknown>(sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: adminUrl() });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database cloned from the run's template. Returns its URL. */
export async function createTestDatabase(): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(
    `create database ${name} template ${process.env.TEST_PG_TEMPLATE ?? 'onramp_template'}`,
  );
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

export async function openTestOrm(databaseUrl: string): Promise<MikroORM> {
  return openOrm({ databaseUrl, poolMax: 20 });
}
