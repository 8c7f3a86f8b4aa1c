import { Agenda, InMemoryNotificationChannel } from 'agenda';
import { PostgresBackend } from '@agendajs/postgres-backend';
import { MongoBackend, MongoClient, type Db } from '@agendajs/mongo-backend';
import { Client, Pool } from 'pg';
import type { Logger } from 'pino';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Config } from '../src/config';
import type { NotificationHub } from '../src/db/notification-hub';
import { HubNotificationChannel } from './agenda-notifications';
import { STARTUP_EXIT, StartupFailure } from '../src/lib/startup-failure';

/**
 * Agenda's store: PostgreSQL (the same database) by default; MongoDB, the owner's production
 * layout, when AGENDA_MONGODB_URL is set. The database stays the source of truth either way:
 * Agenda jobs only trigger work that the services can always re-derive.
 */
/** Agenda and the PostgreSQL pool or MongoDB client we gave it, to end after a drain. */
export interface AgendaStore {
  agenda: Agenda;
  /** Agenda's MongoDB database (for /health); undefined with PostgreSQL. */
  mongoDb(): Db | undefined;
  close(): Promise<void>;
}

export function createAgenda(
  config: Config,
  databaseUrl: string,
  name: string,
  log: Logger,
  store: { mongo: MongoClient } | { notifications: NotificationHub },
): AgendaStore {
  const mongo = 'mongo' in store ? store.mongo : undefined;
  let pool: Pool | undefined;
  let backend: PostgresBackend | MongoBackend;
  let channel: HubNotificationChannel | InMemoryNotificationChannel;
  if ('notifications' in store) {
    // Our own pool, because the backend's has no 'error' listener: a database restart would
    // otherwise throw an unhandled error and kill the runner. Idle clients that die are
    // logged and replaced on next use.
    pool = new Pool({ connectionString: databaseUrl, application_name: 'onramp-agenda' });
    pool.on('error', (error) => log.warn({ err: error }, 'agenda database connection lost'));
    // Agenda's notices travel on the runner's one LISTEN connection, not on a connection of
    // the backend's own (which it would open without `disableNotifications`).
    backend = new PostgresBackend({ pool, tableName: 'agenda_jobs', disableNotifications: true });
    channel = new HubNotificationChannel(store.notifications, pool);
  } else {
    backend = new MongoBackend({ mongo: store.mongo.db() });
    channel = new InMemoryNotificationChannel();
  }
  // A notice Agenda cannot read is logged, not left unhandled (which would crash the process).
  channel.on('error', (error: Error) =>
    log.warn({ err: error }, 'agenda notification channel error'),
  );
  const agenda = new Agenda({
    backend,
    name,
    processEvery: config.JOB_POLL_MS,
    maxConcurrency: 50,
    defaultConcurrency: 10,
    // With PostgreSQL, the LISTEN channel runs a job any runner saves (the first rates at
    // start-up, `enqueue`) at once; MongoDB has none without a replica set (change streams),
    // so this runner's own saves are announced in process instead of waiting for the next
    // poll. Settlement, payouts and webhooks never wait for either: the database's NOTIFY
    // wakes them (deposit-events.ts), whichever store Agenda uses.
    notificationChannel: channel,
  });
  return {
    agenda,
    mongoDb: () => mongo?.db(),
    close: async () => {
      await pool?.end().catch(() => undefined);
      await mongo?.close().catch(() => undefined);
    },
  };
}

export function backendName(config: Config): 'mongodb' | 'postgres' {
  return config.AGENDA_MONGODB_URL ? 'mongodb' : 'postgres';
}

/** How long one attempt to reach MongoDB lasts before the next (the driver's own is 30 s). */
const MONGO_ATTEMPT_MS = 10_000;

/** A connected client of Agenda's MongoDB, after as many attempts as it takes. */
async function connectMongo(url: string, log: Logger): Promise<MongoClient> {
  for (let attempt = 1; ; attempt += 1) {
    const mongo = new MongoClient(url, { serverSelectionTimeoutMS: MONGO_ATTEMPT_MS });
    try {
      await mongo.connect();
      return mongo;
    } catch (error) {
      await mongo.close().catch(() => undefined);
      // 18 AuthenticationFailed: a configuration to fix, not an outage to wait out.
      if ((error as { code?: unknown }).code === 18) {
        throw new StartupFailure(
          STARTUP_EXIT.databaseUnavailable,
          `MongoDB (AGENDA_MONGODB_URL) refuses the credentials: ${(error as Error).message}`,
        );
      }
      // Once, then every few attempts: a long outage must not flood the log.
      if (attempt === 1 || attempt % 3 === 0) {
        log.warn(
          { event: 'waiting_for_job_store', attempt, detail: (error as Error).message },
          'MongoDB (AGENDA_MONGODB_URL) does not answer yet; waiting',
        );
      }
    }
  }
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
  /** The runner's one LISTEN connection (Agenda's notices with PostgreSQL go on it). */
  notifications: NotificationHub,
): Promise<AgendaStore> {
  if (config.AGENDA_MONGODB_URL) {
    // Our own client, connected first: Agenda leaves a failed connect unhandled (the runner
    // would die of it 30 s later with a bare driver stack). Like the database at start, a
    // MongoDB that does not answer is waited for (/readyz says the job store is down).
    const mongo = await connectMongo(config.AGENDA_MONGODB_URL, log);
    const store = createAgenda(config, databaseUrl, name, log, { mongo });
    await store.agenda.ready;
    return store;
  }
  const client = new Client({
    connectionString: databaseUrl,
    application_name: 'onramp-agenda-connect',
  });
  await client.connect();
  try {
    await client.query('select pg_advisory_lock($1)', [AGENDA_CONNECT_LOCK]);
    const store = createAgenda(config, databaseUrl, name, log, { notifications });
    await store.agenda.ready;
    return store;
  } finally {
    // Ending the session releases the lock even if the unlock fails.
    await client
      .query('select pg_advisory_unlock($1)', [AGENDA_CONNECT_LOCK])
      .catch(() => undefined);
    await client.end().catch(() => undefined);
  }
}

/**
 * Jobs this version no longer defines. Agenda only locks jobs whose name a runner defines, so
 * rows an older version queued under these names would never run (the work they asked for is
 * found again from the database: PENDING payouts by the signing drain at start and by the
 * sweep, PENDING_FX deposits by the settlement drain), but they would stay in the table and in
 * the job queue gauges forever. Each runner deletes them when it starts; a runner of the older
 * version still running consumes its own.
 */
export const RETIRED_JOBS = ['send-payout', 'settle-deposit', 'redrive-deposits'];

export function removeRetiredJobs(agenda: Agenda): Promise<number> {
  return agenda.cancel({ names: RETIRED_JOBS });
}

/**
 * After `drain()` nothing runs in this runner, yet jobs it had locked for later (Agenda locks a
 * batch ahead) would stay locked for their lock lifetime. Unlocks them so other runners take
 * them now. PostgreSQL store only: with MongoDB they wait for their lock lifetime.
 */
export async function releaseQueuedJobs(
  orm: MikroORM,
  config: Config,
  name: string,
): Promise<number> {
  if (config.AGENDA_MONGODB_URL) return 0;
  const rows = await orm.em.getConnection().execute<Array<{ id: string }>>(
    `update agenda_jobs set locked_at = null
      where locked_at is not null and last_modified_by = ?
      returning id`,
    [name],
  );
  return rows.length;
}

/**
 * `agenda.drain()`, but done as soon as no job is running. Agenda's drain checks for the end
 * one tick after each job's 'complete' event, while the job leaves its running list only
 * after some more awaits; the last job's end can then go unnoticed and drain waits for its
 * full timeout. Polling the running count closes that gap.
 */
export async function drainAgenda(agenda: Agenda, timeoutMs: number): Promise<void> {
  const finished = new AbortController();
  const poll = setInterval(() => {
    agenda
      .getRunningStats()
      .then((stats) => {
        if (stats.runningJobs === 0) finished.abort();
      })
      .catch(() => finished.abort());
  }, 100);
  try {
    await agenda.drain({ timeout: timeoutMs, signal: finished.signal });
  } finally {
    clearInterval(poll);
  }
}
