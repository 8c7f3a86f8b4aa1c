import type { JobDefinition } from './job';

/** Idempotency keys are kept 24 h; expired rows are never replayed, only taken over. */
export const pruneIdempotencyKeysJob: JobDefinition = {
  name: 'prune-idempotency-keys',
  everyMs: () => 10 * 60 * 1000,
  run: async (deps) => {
    const deleted = await deps.services.idempotency.prune(deps.orm.em.fork());
    if (deleted > 0) deps.log.debug({ deleted }, 'pruned expired idempotency keys');
  },
};
