import { Agenda } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import { MongoBackend } from '@agendajs/mongo-backend';
import { Client } from 'pg';
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

/** Session advisory lock key that runners hold while Agenda connects (see below). */
const AGENDA_CONNECT_LOCK = 7_214_003;

/**
 * Creates Agenda and waits until its store is connected. The PostgreSQL backend sets up its
 * schema on connect with CREATE OR REPLACE FUNCTION and DROP/CREATE TRIGGER, which fail when
 * two runners start at the same moment (one of them would exit). Runners therefore connect one
 * at a time under an advisory lock; it is held only for the connect.
 */
export async function connectAgenda(
  config: Config,
  databaseUrl: string,
  name: string,
  log: Logger,
): Promise<Agenda> {
  if (config.AGENDA_MONGODB_URL) {
    const agenda = createAgenda(config, databaseUrl, name, log);
    await agenda.ready;
    return agenda;
  }
  const client = new Client({
    connectionString: databaseUrl,
    application_name: 'onramp-agenda-connect',
  });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [AGENDA_CONNECT_LOCK]);
    const agenda = createAgenda(config, databaseUrl, name, log);
    await agenda.ready;
    return agenda;
  } finally {
    // Ending the session releases the lock even if the unlock fails.
    await client
      .query('select pg_advisory_unlock($1)', [AGENDA_CONNECT_LOCK])
      .catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}
