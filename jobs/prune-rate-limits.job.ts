import { pruneRateLimitWindows } from '../src/system';
import type { JobDefinition } from './job';

/** Rate-limit windows older than an hour are never read again. */
export const pruneRateLimitsJob: JobDefinition = {
  name: 'prune-rate-limits',
  everyMs: () => 10 * 60 * 1000,
  run: async (deps) => {
    const cutoff = new Date(deps.services.clock.now().getTime() - 60 * 60 * 1000);
    await pruneRateLimitWindows(deps.orm.em.fork(), cutoff);
  },
};
