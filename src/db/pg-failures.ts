/**
 * The one place that reads PostgreSQL's SQLSTATEs and driver failures (issue 34). Anything
 * thrown by the `pg` driver, by knex, or by MikroORM (its DriverException subclasses copy the
 * driver error's own fields, `code` and `constraint` among them), bare or wrapped as another
 * error's `cause`, sorts into a small closed set; callers decide what each kind means to
 * them (retry.ts reruns lost races, error-mapping.ts answers 409 or 503, the CLI exits 4).
 *
 * No imports: the CLI classifies its errors without loading the ORM (cli-errors.ts).
 * Codes: PostgreSQL manual, Appendix A "PostgreSQL Error Codes".
 */

export type PgFailure =
  /** 23505: a row with the same key exists (or a concurrent transaction just wrote it). */
  | { kind: 'unique_violation'; constraint: string | undefined; message: string }
  /** 23P01: an exclusion constraint refused the row (two writers picked the same thing). */
  | { kind: 'exclusion'; constraint: string | undefined; message: string }
  /** 40001: a REPEATABLE READ or SERIALIZABLE transaction lost to a concurrent one. */
  | { kind: 'serialization'; message: string }
  /** 40P01: PostgreSQL ended this transaction to break a cycle of lock waits. */
  | { kind: 'deadlock'; message: string }
  /** 55P03: a lock not granted within `lock_timeout` (or at once, under NOWAIT). */
  | { kind: 'lock_timeout'; message: string }
  /** 57014: the statement was cancelled (`statement_timeout`, or a cancel request). */
  | { kind: 'statement_timeout'; message: string }
  /**
   * The database cannot be reached, is going away or is out of a resource: network,
   * connection class, shutdown, class 53 (53300 too many connections, out of memory, disk full).
   */
  | { kind: 'unavailable'; message: string }
  /** The database refuses this configuration: credentials (class 28), no such database. */
  | { kind: 'misconfigured'; message: string }
  /** 42P01: a table the code expects is not there (the database is not migrated). */
  | { kind: 'missing_table'; message: string };

export type PgFailureKind = PgFailure['kind'];

const BY_SQLSTATE: Record<string, PgFailureKind> = {
  '23505': 'unique_violation',
  '23P01': 'exclusion',
  '40001': 'serialization',
  '40P01': 'deadlock',
  '55P03': 'lock_timeout',
  '57014': 'statement_timeout', // query_canceled
  '57P01': 'unavailable', // admin_shutdown: the server (or pg_terminate_backend) ended us
  '57P02': 'unavailable', // crash_shutdown
  '57P03': 'unavailable', // cannot_connect_now: starting up or shutting down
  '3D000': 'misconfigured', // invalid_catalog_name: no such database
  '42P01': 'missing_table',
};

/**
 * Whole SQLSTATE classes: 08 connection exception, 53 insufficient resources (a retry later
 * may find a free connection or memory), 28 invalid authorization.
 */
const BY_CLASS: Record<string, PgFailureKind> = {
  '08': 'unavailable',
  '53': 'unavailable',
  '28': 'misconfigured',
};

/** Node socket errors under the driver: nothing answers at the configured address. */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EPIPE',
]);

/**
 * Failures `pg`, pg-pool and knex report by message only (no code): the server closed the
 * socket, the pool's connect or acquire timed out.
 */
const UNAVAILABLE_MESSAGE =
  /Connection terminated|connect ECONNREFUSED|timeout exceeded when trying to connect|Knex: Timeout acquiring a connection/i;

const SQLSTATE = /^[0-9A-Z]{5}$/;
/** Wrappers seen around a driver error are one or two deep; the bound stops a cycle. */
const MAX_DEPTH = 5;

interface Link {
  code?: unknown;
  sqlState?: unknown;
  message?: unknown;
  constraint?: unknown;
  cause?: unknown;
}

function kindOfCode(code: unknown): PgFailureKind | undefined {
  if (typeof code !== 'string') return undefined;
  if (UNREACHABLE.has(code)) return 'unavailable';
  if (!SQLSTATE.test(code)) return undefined;
  return BY_SQLSTATE[code] ?? BY_CLASS[code.slice(0, 2)];
}

function failureOf(link: Link): PgFailure | null {
  const message = typeof link.message === 'string' ? link.message : '';
  const kind =
    kindOfCode(link.sqlState) ??
    kindOfCode(link.code) ??
    (UNAVAILABLE_MESSAGE.test(message) ? 'unavailable' : undefined);
  if (kind === undefined) return null;
  if (kind === 'unique_violation' || kind === 'exclusion') {
    const constraint = typeof link.constraint === 'string' ? link.constraint : undefined;
    return { kind, constraint, message };
  }
  return { kind, message };
}

/**
 * What a thrown value says about the database, or null when it says nothing (a bug, a domain
 * error, any other SQLSTATE). The outermost link of the `cause` chain that says something
 * decides.
 */
export function classifyPgFailure(error: unknown): PgFailure | null {
  let current: unknown = error;
  for (let depth = 0; depth < MAX_DEPTH && current && typeof current === 'object'; depth++) {
    const failure = failureOf(current as Link);
    if (failure) return failure;
    current = (current as Link).cause;
  }
  return null;
}

/**
 * Kinds that mean "another transaction won a race; running the whole transaction again will
 * succeed": a serialization failure, a deadlock, and an exclusion violation (two allocations
 * picking the same virtual account at once, see onramps/virtual-account.service.ts).
 */
export function isLostRace(failure: PgFailure | null): boolean {
  return (
    failure?.kind === 'serialization' ||
    failure?.kind === 'deadlock' ||
    failure?.kind === 'exclusion'
  );
}
