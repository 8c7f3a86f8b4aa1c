// How `onramp` fails: exit codes, error codes, and one way of printing an error. Kept free of
// heavy imports: usage errors and `--help` must not load the ORM to report themselves.
import { classifyPgFailure } from '../db/pg-failures';

/** The exit codes `docs/cli.md` documents; scripts branch on them, so they never change. */
export const EXIT = {
  ok: 0,
  /** Refused by the service (unknown merchant, wrong status...) or a check found problems. */
  failed: 1,
  /** Bad command line: unknown command or option, missing or invalid argument. */
  usage: 2,
  /** Invalid configuration: a malformed variable, no database to use. */
  configuration: 3,
  /** The database cannot be reached, refuses the credentials, or is not migrated. */
  database: 4,
  /** Anything else: a bug. The stack is printed with --debug or LOG_LEVEL=debug. */
  internal: 5,
} as const;

/** An error the operator can act on: printed as its code and message, never with a stack. */
export class CliFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly exitCode: number = EXIT.failed,
  ) {
    super(message);
    this.name = 'CliFailure';
  }
}

/** A user error the command itself detects (a switch that this deployment does not offer...). */
export class CliError extends CliFailure {
  constructor(message: string, code = 'refused') {
    super(code, message, EXIT.failed);
  }
}

/** Ends the command with this exit code once its output is printed (no error message). */
export class CliExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
  }
}

export interface ErrorReport {
  code: string;
  message: string;
  exitCode: number;
  /** Only for an unexpected error (a bug). */
  stack?: string;
}

/** Sorts any thrown value into what the operator sees: a code, a message and an exit code. */
export function classify(error: unknown): ErrorReport {
  if (error instanceof CliFailure) {
    return { code: error.code, message: error.message, exitCode: error.exitCode };
  }
  const commander = error as { code?: string; message?: string };
  if (typeof commander?.code === 'string' && commander.code.startsWith('commander.')) {
    return {
      code: 'usage_error',
      message:
        commander.code === 'commander.help'
          ? 'a subcommand is missing (see --help)'
          : String(commander.message ?? '').replace(/^error: /, ''),
      exitCode: EXIT.usage,
    };
  }
  // DomainError, by name: importing it would load nothing heavy, but names keep this file leaf.
  if ((error as Error)?.name === 'DomainError') {
    const domain = error as Error & { code: string };
    return { code: domain.code, message: domain.message, exitCode: EXIT.failed };
  }
  // A stored secret this configuration cannot open: the wrong ENCRYPTION_KEY (or a tampered row).
  if ((error as Error)?.name === 'SecretDecryptError') {
    return {
      code: 'secret_unreadable',
      message: (error as Error).message,
      exitCode: EXIT.configuration,
    };
  }
  const database = classifyPgFailure(error);
  if (database?.kind === 'unavailable' || database?.kind === 'misconfigured') {
    return {
      code: 'database_unavailable',
      message: `cannot use the database: ${database.message}`,
      exitCode: EXIT.database,
    };
  }
  if (database?.kind === 'missing_table') {
    return {
      code: 'database_not_migrated',
      message: `the database lacks a table (run \`onramp db migrate\`): ${database.message.split(' - ').pop()}`,
      exitCode: EXIT.database,
    };
  }
  const err = error instanceof Error ? error : new Error(String(error));
  return {
    code: 'internal_error',
    message: `unexpected error: ${err.message}`,
    exitCode: EXIT.internal,
    stack: err.stack,
  };
}

/**
 * Prints the error on stderr: under --json one document `{"error":{"code","message"}}`, else one
 * line. The stack of a bug only when debugging; an operator's mistake never shows one.
 */
export function reportError(error: unknown, json: boolean, debug: boolean): number {
  const report = classify(error);
  const stack = debug && report.stack ? report.stack : undefined;
  if (json) {
    const body = { code: report.code, message: report.message, ...(stack ? { stack } : {}) };
    process.stderr.write(`${JSON.stringify({ error: body })}\n`);
  } else {
    const hint =
      report.exitCode === EXIT.internal && !stack ? ' (run with --debug for the stack)' : '';
    process.stderr.write(`onramp: ${report.message}${hint}\n${stack ? `${stack}\n` : ''}`);
  }
  return report.exitCode;
}
