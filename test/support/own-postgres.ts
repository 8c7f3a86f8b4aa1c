import { mkdtempSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onrampCli } from './stack';

export interface OwnPostgres {
  url: string;
  stop(): Promise<void>;
}

/**
 * A PostgreSQL server of the test's own, migrated, that the test may stop (outages) without
 * touching the run's shared server.
 */
export async function startOwnPostgres(
  name: string,
  /** Server settings (postgresql.conf), e.g. to load `pg_stat_statements`. */
  settings?: Record<string, string>,
): Promise<OwnPostgres> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { spawnEmbeddedPostgres } = require(
    join(__dirname, '..', '..', 'dist', 'src', 'embedded', 'pg-process.js'),
  );
  const port = await new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port: p } = server.address() as { port: number };
      server.close(() => resolve(p));
    });
  });
  const postgres: OwnPostgres = await spawnEmbeddedPostgres({
    dataDir: mkdtempSync(join(tmpdir(), `onramp-${name}-`)),
    port,
    database: 'onramp',
    persistent: false,
    settings,
  });
  await onrampCli(postgres.url, ['db', 'migrate']);
  return postgres;
}
