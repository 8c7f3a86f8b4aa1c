import type { Config } from '../config';

/** The processes themselves need DATABASE_URL; `npm start` provides it from embedded PostgreSQL. */
export function requireDatabaseUrl(config: Config): string {
  if (!config.DATABASE_URL) {
    process.stderr.write(
      'DATABASE_URL: required for this process (use `npm start` for the embedded PostgreSQL)\n',
    );
    process.exit(78);
  }
  return config.DATABASE_URL;
}
