import type { JobDefinition } from './job';

/**
 * The safety net of settlement: every SETTLEMENT_SWEEP_MS, this runner's drain takes whatever
 * PENDING_FX deposits no live run holds (a NOTIFY missed while no runner listened, a batch
 * whose runner died before applying it once its claim expired). Normally the deposit-events
 * listener has already woken the same drain, and this run finds nothing.
 */
export const settleDepositsJob: JobDefinition = {
  name: 'settle-deposits',
  everyMs: (deps) => deps.services.config.SETTLEMENT_SWEEP_MS,
  // A dead runner's lock frees within seconds, so another runner's sweep takes over.
  lockLifetimeMs: 10_000,
  run: (deps) => deps.settlement.wake(),
};
