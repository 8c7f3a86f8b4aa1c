import type { JobDefinition } from './job';

/**
 * The safety net for returns to the payer: sends every due attempt (a RETURNING notice
 * missed while disconnected, a claim a crashed runner left, an attempt the bank only
 * accepted). The notice itself wakes the same sender at once (`jobs/deposit-events.ts`).
 */
export const sendReturnsJob: JobDefinition = {
  name: 'send-returns',
  everyMs: (deps) => deps.services.config.RETURN_SWEEP_SECONDS * 1000,
  run: async (deps) => {
    await deps.services.returnSender.wake(() => deps.orm.em.fork());
  },
};
