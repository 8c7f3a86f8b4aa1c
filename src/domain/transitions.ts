/**
 * Status lifecycles as data, one rule for every aggregate: a table of allowed moves and where a
 * new row may start. Each module keeps its table beside its aggregate (deposits, onramps,
 * payouts and withdrawals) and changes a status only through `checkMove`, so a move outside
 * the table is refused the same way everywhere (the database re-checks deposits' moves).
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
