import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import type { MikroORM } from '@mikro-orm/postgresql';
import { openOrm } from '../../src/orm';

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

/**
 * Databases this test file created, checked by `ledger-check-after-all.ts` once the file is
 * done. Kept on the file's global (not only in this module) so `jest.resetModules()` or
 * `isolateModules` in a test cannot hide a database from the check.
 */
const CREATED = Symbol.for('onramp.test.createdDatabases');
function created(): Set<string> {
  const holder = globalThis as unknown as Record<symbol, Set<string> | undefined>;
  return (holder[CREATED] ??= new Set<string>());
}

/** The URLs `createTestDatabase()` returned in this test file (minus forgotten ones). */
export function createdTestDatabases(): string[] {
  return [...created()];
}

/** Leaves a database out of the after-all ledger check (a test that corrupts it on purpose). */
export function forgetTestDatabase(url: string): void {
  created().delete(url);
}

/**
 * A fresh, migrated database cloned from the run's template, or a copy of another test
 * database (`from`: its URL; nothing may be connected to it). Returns its URL.
 */
export async function createTestDatabase(options: { from?: string } = {}): Promise<string> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const template = options.from
    ? new URL(options.from).pathname.slice(1)
    : (process.env.TEST_PG_TEMPLATE ?? 'onramp_template');
  if (!/^[a-z_][a-z0-9_]*$/.test(template)) throw new Error(`bad template database ${template}`);
  // A copy waits for the source's last connections (a just-closed pool) to go away.
  for (let attempt = 1; ; attempt += 1) {
    try {
      await adminQuery(`create database ${name} template ${template}`);
      break;
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (code !== '55006' || attempt >= 50) throw error; // object_in_use
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  const url = new URL(adminUrl());
  url.pathname = `/${name}`;
  created().add(url.toString());
  return url.toString();
}

export async function openTestOrm(databaseUrl: string): Promise<MikroORM> {
  return openOrm({ databaseUrl, poolMax: 20 });
}
