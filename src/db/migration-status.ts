import { Client } from 'pg';
import { migrationsList } from './migrations';
import { STARTUP_EXIT, StartupFailure } from '../lib/startup-failure';

/** MikroORM's record of applied migrations (its default table name). */
const MIGRATIONS_TABLE = 'mikro_orm_migrations';

export interface MigrationStatus {
  /** Applied, oldest first, with when. */
  applied: { name: string; executedAt: Date }[];
  /** Known to this version and not applied yet, in the order they would run. */
  pending: string[];
  /** Applied but unknown to this version: the database belongs to a newer one. */
  unknown: string[];
}

/**
 * What the database has applied, against the migrations this version ships. Reads only: it
 * never creates the migrations table (MikroORM's own pending check would), so it is safe
 * against a database that some other version is about to migrate.
 */
export async function migrationStatus(databaseUrl: string): Promise<MigrationStatus> {
  const client = new Client({ connectionString: databaseUrl });
  client.on('error', () => undefined);
  await client.connect();
  try {
    const table = await client.query<{ present: boolean }>(
      'select to_regclass($1) is not null as present',
      [MIGRATIONS_TABLE],
    );
    const rows = table.rows[0].present
      ? (
          await client.query<{ name: string; executed_at: Date }>(
            `select name, executed_at from ${MIGRATIONS_TABLE} order by id`,
          )
        ).rows
      : [];
    return compareMigrations(
      rows.map((row) => ({ name: row.name, executedAt: row.executed_at })),
      migrationsList.map((migration) => migration.name),
    );
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** Splits the applied list and the shipped one into applied, pending and unknown. */
export function compareMigrations(
  applied: { name: string; executedAt: Date }[],
  shipped: string[],
): MigrationStatus {
  // MikroORM records a name without its file extension.
  const appliedNames = new Set(applied.map((row) => row.name.replace(/\.[jt]s$/, '')));
  const shippedNames = new Set(shipped);
  return {
    applied,
    pending: shipped.filter((name) => !appliedNames.has(name)),
    unknown: [...appliedNames].filter((name) => !shippedNames.has(name)),
  };
}

/**
 * The processes' start-up check: a schema behind this version refuses to start (exit 65),
 * naming the first pending migration and the command that applies them.
 */
export function refuseWhenPending(status: MigrationStatus): void {
  if (status.pending.length === 0) return;
  const count = status.pending.length;
  throw new StartupFailure(
    STARTUP_EXIT.migrationsPending,
    `the database has ${count} pending migration${count > 1 ? 's' : ''} ` +
      `(first: ${status.pending[0]}); run \`onramp db migrate\` first (\`onramp db status\` lists them)`,
  );
}
