import type { OnrampStatus } from '../domain/onramp-kinds';
import type { Onramp } from './onramp.entity';
import { ONRAMP_LIFECYCLE, type OnrampLifecycleStatus } from '../domain/onramp-status';
import { checkMove, sqlMove, type SqlMove } from '../domain/transitions';

/**
 * The one place an onramp entity's status is set, its first one included (an onramp not saved
 * yet has none, so its first must be ACTIVE): checked against ONRAMP_LIFECYCLE. Writes
 * nothing: the caller flushes, holding the onramp's row lock for any move after the first.
 */
export function moveOnramp(onramp: Onramp, to: OnrampStatus, now: Date): void {
  const from = (onramp.status as OnrampLifecycleStatus | undefined) ?? null;
  checkMove(ONRAMP_LIFECYCLE, from, to);
  onramp.status = to;
  onramp.updatedAt = now;
}

/**
 * `moveOnramp` for the statements of the deposit pipeline, which move onramps without loading
 * them: the SET item, and the condition on the stored status under which ONRAMP_LIFECYCLE
 * allows the move (a row in any other status is left as it is).
 */
export function moveOnrampRows(to: OnrampStatus): SqlMove {
  return sqlMove(ONRAMP_LIFECYCLE, 'status', to);
}
