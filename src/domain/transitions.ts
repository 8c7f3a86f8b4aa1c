/**
 * Status lifecycles as data, one rule for every aggregate: a table of allowed moves and where a
 * new row may start, one file per lifecycle in src/domain. Each aggregate changes its status
 * only through its module's `move*` function (`moveDeposit`, `movePayout`, `moveWithdrawal`,
 * `moveOnramp`, `moveMerchant`, `moveWebhookDelivery`, `moveDepositReturn`, `moveFxOrder`),
 * which checks the move here, so a move outside the table is refused the same way everywhere
 * (the database re-checks deposits' moves). test/unit/status-writes.test.ts finds any status
 * written elsewhere.
 */
export interface TransitionTable<S extends string> {
  /** What the lifecycle is of, for error messages: "deposit", "onramp". */
  readonly subject: string;
  /** Where a new row may start. */
  readonly initial: readonly S[];
  /** Allowed moves from each status. */
  readonly moves: Readonly<Record<S, readonly S[]>>;
}

export class IllegalTransitionError<S extends string = string> extends Error {
  constructor(
    readonly subject: string,
    readonly from: S | null,
    readonly to: S,
  ) {
    super(`${subject} cannot move from ${from ?? '(new)'} to ${to}`);
    this.name = 'IllegalTransitionError';
  }
}

export function canMove<S extends string>(
  table: TransitionTable<S>,
  from: S | null,
  to: S,
): boolean {
  return from === null ? table.initial.includes(to) : table.moves[from].includes(to);
}

/** Throws `IllegalTransitionError` on a move the table does not allow. */
export function checkMove<S extends string>(
  table: TransitionTable<S>,
  from: S | null,
  to: S,
): void {
  if (!canMove(table, from, to)) throw new IllegalTransitionError(table.subject, from, to);
}

/** Where a statement moves rows: one status, or a column holding each row's own (a batch). */
export type SqlTarget<S extends string> = S | { column: string };

/**
 * A move as SQL, for rows written by statements rather than entities. `set` is the UPDATE's
 * SET item, `value` the status as an INSERT's VALUES item, and `allowed` the condition on the
 * stored status under which the table allows the move: an UPDATE keeps to those rows, so one
 * that moves many never moves a row the table does not let move.
 */
export interface SqlMove {
  readonly set: string;
  readonly value: string;
  readonly allowed: string;
}

/** A status as a SQL literal: only one of the table's own (capitals and underscores). */
function literalOf<S extends string>(table: TransitionTable<S>, status: S): string {
  if (!Object.hasOwn(table.moves, status) || !/^[A-Z_]+$/.test(status)) {
    throw new Error(`${table.subject} has no status ${status}`);
  }
  return `'${status}'`;
}

/**
 * The SQL of a move, from the table. `stored`: the column of the row's stored status
 * (`status`, `d.status`), or null for a new row, whose status must be an initial one. With a
 * column as `to` (each row's target), `allowed` pairs each stored status with its target.
 * `unchanged`: a row may also keep its status (a write-back of rows moved in memory, some of
 * which changed other columns only).
 */
export function sqlMove<S extends string>(
  table: TransitionTable<S>,
  stored: string | null,
  to: SqlTarget<S>,
  options: { unchanged?: boolean } = {},
): SqlMove {
  const statuses = Object.keys(table.moves) as S[];
  const pairs = statuses.flatMap((from) =>
    [...table.moves[from], ...(options.unchanged ? [from] : [])].map((next) => [from, next]),
  );
  if (typeof to !== 'string') {
    if (stored === null) throw new Error(`a new ${table.subject} starts in one status`);
    const list = pairs.map(([a, b]) => `(${literalOf(table, a)}, ${literalOf(table, b)})`);
    return {
      set: `status = ${to.column}`,
      value: to.column,
      allowed: list.length > 0 ? `(${stored}, ${to.column}) in (${list.join(', ')})` : 'false',
    };
  }
  const value = literalOf(table, to);
  if (stored === null) {
    checkMove(table, null, to);
    return { set: `status = ${value}`, value, allowed: 'true' };
  }
  const from = pairs.filter(([, next]) => next === to).map(([a]) => literalOf(table, a));
  if (from.length === 0) throw new Error(`no ${table.subject} status moves to ${to}`);
  return { set: `status = ${value}`, value, allowed: `${stored} in (${from.join(', ')})` };
}
