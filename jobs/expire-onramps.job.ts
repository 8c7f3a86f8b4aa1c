import type { JobDefinition } from './job';

/**
 * Marks short-lived onramps past their TTL as EXPIRED and starts their virtual accounts'
 * 365-day cooldown. Batches until nothing is due, so a backlog clears in one run.
 */
export const expireOnrampsJob: JobDefinition = {
  name: 'expire-onramps',
  everyMs: (deps) => deps.services.config.EXPIRY_SWEEP_SECONDS * 1000,
  run: async (deps) => {
    let expired = 0;
    for (;;) {
      const count = await deps.services.onramps.expireDue(deps.orm.em.fork(), 500);
      expired += count;
      if (count < 500) break;
    }
    if (expired > 0) deps.log.info({ expired }, 'onramps expired');
  },
};
