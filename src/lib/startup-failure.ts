// How the gateway, the job runner and `npm start` fail to start: one line on stderr, never a
// stack (unless LOG_LEVEL is debug or trace), and an exit code from this table. docs/cli.md
// ("Process exit codes") documents the table; orchestrators and scripts branch on it, so a code
// never changes meaning. The codes are sysexits(3)'s, as 78 (EX_CONFIG) already was.
import { classifyPgFailure } from '../db/pg-failures';

/** Exit codes of the service processes (not of `onramp` commands: see src/cli/cli-errors.ts). */
export const STARTUP_EXIT = {
  /** EX_DATAERR: the database's schema is behind this version (migrations pending). */
  migrationsPending: 65,
  /** EX_UNAVAILABLE: the database refuses us (credentials, no such database) or never answered. */
  databaseUnavailable: 69,
  /** EX_SOFTWARE: anything unexpected (a bug). */
  internal: 70,
  /** EX_OSERR: a port cannot be listened on (in use, not permitted, no such address). */
  listen: 71,
  /** EX_CONFIG: the configuration is invalid or incomplete. */
  configuration: 78,
} as const;

/** A failure the operator can act on: its message is the whole line printed. */
export class StartupFailure extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'StartupFailure';
  }
}

const LISTEN_ERRORS: Record<string, string> = {
  EADDRINUSE: 'is already in use',
  EACCES: 'is not permitted (a port below 1024 needs privileges)',
  EADDRNOTAVAIL: 'names an address this machine does not have',
};

/**
 * A listen error as a startup failure naming the setting, or the error itself. `setting`: the
 * variables that chose the address (e.g. `HOST:PORT`).
 */
export function listenFailure(error: unknown, setting: string, address: string): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const why = code ? LISTEN_ERRORS[code] : undefined;
  if (!why) return error;
  return new StartupFailure(STARTUP_EXIT.listen, `${setting}: ${address} ${why}`);
}

/**
 * Prints why `what` (gateway, job runner...) did not start, as one line, and exits with the
 * failure's code (70 for anything unexpected). `debug`: also the stack of an unexpected error.
 */
export function exitOnStartupFailure(what: string, error: unknown, debug: boolean): never {
  const database = error instanceof StartupFailure ? null : classifyPgFailure(error);
  if (database?.kind === 'unavailable' || database?.kind === 'misconfigured') {
    // The database went away between the wait and the first use: starting again is the fix.
    error = new StartupFailure(
      STARTUP_EXIT.databaseUnavailable,
      `cannot use the database (DATABASE_URL): ${oneLine(database.message)}`,
    );
  } else if (database?.kind === 'missing_table') {
    error = new StartupFailure(
      STARTUP_EXIT.migrationsPending,
      `the database is not migrated (run \`onramp db migrate\`): ${oneLine(database.message)}`,
    );
  }
  if (error instanceof StartupFailure) {
    process.stderr.write(`${what} did not start: ${error.message}\n`);
    process.exit(error.exitCode);
  }
  const err = error instanceof Error ? error : new Error(String(error));
  const message = oneLine(err.message);
  if (debug && err.stack) {
    process.stderr.write(`${what} did not start: unexpected error: ${message}\n${err.stack}\n`);
  } else {
    process.stderr.write(
      `${what} did not start: unexpected error: ${message} (LOG_LEVEL=debug prints the stack)\n`,
    );
  }
  process.exit(STARTUP_EXIT.internal);
}

/** Several lines (a driver's, a config list) joined into one, for a one-line report. */
export function oneLine(text: string): string {
  return text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('; ');
}

/** Whether LOG_LEVEL asks for stacks (read raw: the configuration may be what failed). */
export function debugRequested(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.LOG_LEVEL === 'debug' || env.LOG_LEVEL === 'trace';
}
