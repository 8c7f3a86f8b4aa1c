import type { JobDefinition } from './job';

/** Holds released per transaction: one run loops until nothing more is due. */
const BATCH = 200;

/**
 * Reserve holds whose `hold_days` have passed go back to usd_available (docs/api.md, v0.3:
 * within a minute of due), each merchant's in one ledger transaction with its
 * `balance.reserve_released` event. Due is decided on the services' injected clock; holds a
 * reversal is drawing on are skipped and taken by the next run.
 */
export const releaseReservesJob: JobDefinition = {
  name: 'release-reserves',
  everyMs: (deps) => deps.services.config.RESERVE_RELEASE_POLL_MS,
  run: async (deps) => {
    let released = 0;
    for (;;) {
      const count = await deps.services.reserves.releaseDue(deps.orm.em.fork(), BATCH);
      released += count;
      if (count < BATCH) break;
    }
    if (released > 0) deps.log.info({ released }, 'reserve holds released');
  },
};
