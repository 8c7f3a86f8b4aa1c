import { Client } from 'pg';
import type { Logger } from 'pino';
import { classifyPgFailure } from './pg-failures';
import { migrationStatus, refuseWhenPending } from './migration-status';
import { oneLine, STARTUP_EXIT, StartupFailure } from '../lib/startup-failure';

/** One connection attempt's own bound: a silent network must not stall the loop. */
const ATTEMPT_TIMEOUT_MS = 5_000;
const FIRST_PAUSE_MS = 250;
const LONGEST_PAUSE_MS = 5_000;

export interface DatabaseWaitOptions {
  databaseUrl: string;
  /**
   * Give up after this long (exit 69). 0: wait for as long as it takes, as an orchestrator
   * expects: the process stays live (/livez) and not ready (/readyz) meanwhile.
   */
  maxWaitMs: number;
  /** Each failed attempt: why, and how long the wait has lasted. */
  onUnavailable: (detail: string, waitedMs: number) => void;
  /** Tells the wait to stop (a SIGTERM while waiting): resolves false then. */
  stopped?: () => boolean;
}

/**
 * Waits until the database answers `select 1`. A database that is down or unreachable (refused,
 * no route, DNS not there yet, starting up) is waited for, with pauses growing to 5 s; one that
 * answers but refuses us (credentials, no such database) is a configuration to fix, not a wait:
 * it fails at once. Resolves true once it answers, false when told to stop.
 *
 * Measured on the monotonic clock: it bounds how long a process waits, not a business time.
 */
export async function waitForDatabase(options: DatabaseWaitOptions): Promise<boolean> {
  const started = performance.now();
  let pause = FIRST_PAUSE_MS;
  for (;;) {
    if (options.stopped?.()) return false;
    const failure = await databaseAnswers(options.databaseUrl);
    if (failure === null) return true;
    const waited = performance.now() - started;
    if (failure.kind !== 'unavailable') {
      throw new StartupFailure(
        STARTUP_EXIT.databaseUnavailable,
        `cannot use the database (DATABASE_URL): ${failure.message}`,
      );
    }
    if (options.maxWaitMs > 0 && waited + pause > options.maxWaitMs) {
      throw new StartupFailure(
        STARTUP_EXIT.databaseUnavailable,
        `the database did not answer within ${Math.round(options.maxWaitMs / 1000)} s ` +
          `(DATABASE_WAIT_SECONDS): ${failure.message}`,
      );
    }
    options.onUnavailable(failure.message, waited);
    await new Promise((resolve) => setTimeout(resolve, pause));
    pause = Math.min(pause * 2, LONGEST_PAUSE_MS);
  }
}

/** null when the database answers; else how it failed ('unavailable': worth waiting for). */
export async function databaseAnswers(
  databaseUrl: string,
): Promise<{ kind: 'unavailable' | 'refused'; message: string } | null> {
  const client = new Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: ATTEMPT_TIMEOUT_MS,
    query_timeout: ATTEMPT_TIMEOUT_MS,
  });
  // An error after connect (the server going away) must not become an uncaught 'error' event.
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.query('select 1');
    return null;
  } catch (error) {
    const failure = classifyPgFailure(error);
    const message = oneLine(
      failure?.message || (error instanceof Error ? error.message : String(error)),
    );
    if (failure?.kind === 'unavailable' || failure === null) {
      // A failure the classification does not know (a TLS handshake cut short...) is waited
      // for too: the bound, when set, still ends it.
      return { kind: 'unavailable', message: message || 'no answer' };
    }
    return { kind: 'refused', message };
  } finally {
    await client.end().catch(() => undefined);
  }
}

/** How often a process still waiting says so (the first failure is logged at once). */
const WAITING_LOG_EVERY_MS = 30_000;

/**
 * The processes' start: waits for the database (logging at once, then every 30 s), then
 * refuses a schema this version is ahead of (exit 65) and warns of one it is behind (a newer
 * version migrated: rolling upgrades run old processes on a migrated database, so that starts).
 * Resolves false when `stopped` ended the wait.
 */
export async function databaseReadyToStart(options: {
  databaseUrl: string;
  maxWaitSeconds: number;
  log: Logger;
  stopped?: () => boolean;
}): Promise<boolean> {
  const { log } = options;
  let loggedAt: number | undefined;
  const reached = await waitForDatabase({
    databaseUrl: options.databaseUrl,
    maxWaitMs: options.maxWaitSeconds * 1000,
    stopped: options.stopped,
    onUnavailable: (detail, waitedMs) => {
      if (loggedAt !== undefined && waitedMs - loggedAt < WAITING_LOG_EVERY_MS) return;
      loggedAt = waitedMs;
      log.warn(
        { event: 'waiting_for_database', detail, waited_seconds: Math.round(waitedMs / 1000) },
        'the database does not answer yet; waiting (/livez 200, /readyz 503)',
      );
    },
  });
  if (!reached) return false;
  if (loggedAt !== undefined) log.info({ event: 'database_reached' }, 'the database answers');
  const status = await migrationStatus(options.databaseUrl);
  refuseWhenPending(status);
  if (status.unknown.length > 0) {
    log.warn(
      { unknown_migrations: status.unknown },
      'the database has migrations this version does not know (a newer version migrated it)',
    );
  }
  return true;
}
