import {
  DEPOSIT_RETURN_LIFECYCLE,
  type DepositReturnStatus,
} from '../domain/deposit-return-lifecycle';
import { checkMove, sqlMove, type SqlMove } from '../domain/transitions';

/**
 * The one place a return attempt's status is written. Attempts are `deposit_returns` rows of
 * statements, so the move is SQL: `from` is the status the caller read with the attempt's row
 * lock (null: a new attempt, whose status must be an initial one), checked against
 * DEPOSIT_RETURN_LIFECYCLE before anything is written; the answer is the INSERT's value, or
 * the UPDATE's SET item with the condition on the stored status that the table allows.
 */
export function moveDepositReturn(
  from: DepositReturnStatus | null,
  to: DepositReturnStatus,
): SqlMove {
  checkMove(DEPOSIT_RETURN_LIFECYCLE, from, to);
  return sqlMove(DEPOSIT_RETURN_LIFECYCLE, from === null ? null : 'status', to);
}
