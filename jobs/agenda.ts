import { Agenda } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import { MongoBackend } from '@agendajs/mongo-backend';
import type { Logger } from 'pino';
import type { Config } from '../src/config';

/**
 * Agenda's store: PostgreSQL (the same database) by default; MongoDB, the owner's production
 * layout, when AGENDA_MONGODB_URL is set. The database stays the source of truth either way:
 * Agenda jobs only trigger work that the services can always re-derive.
 */
export function createAgenda(
  config: Config,
  databaseUrl: string,
  name: string,
  log: Logger,
): Agenda {
  const backend = config.AGENDA_MONGODB_URL
    ? new MongoBackend({ address: config.AGENDA_MONGODB_URL })
    : new PostgresBackend({ connectionString: databaseUrl, tableName: 'agenda_jobs' });
  // The LISTEN connection reconnects by itself after a database restart; its errors are logged,
  // not left unhandled (which would crash the process).
  backend.notificationChannel?.on('error', (error: Error) =>
    log.warn({ err: error }, 'agenda notification channel error'),
  );
  return new Agenda({
    backend,
    name,
    processEvery: config.JOB_POLL_MS,
    maxConcurrency: 50,
    defaultConcurrency: 10,
  });
}

export function backendName(config: Config): 'mongodb' | 'postgres' {
  return config.AGENDA_MONGODB_URL ? 'mongodb' : 'postgres';
}
