import type { JobDefinition } from './job';

/** Ended dashboard sessions are kept a day (for support questions), then deleted. */
export const pruneDashboardSessionsJob: JobDefinition = {
  name: 'prune-dashboard-sessions',
  everyMs: () => 60 * 60 * 1000,
  run: async (deps) => {
    const deleted = await deps.services.dashboardSessions.prune(deps.orm.em.fork());
    if (deleted > 0) deps.log.debug({ deleted }, 'pruned ended dashboard sessions');
  },
};
