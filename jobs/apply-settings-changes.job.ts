import type { JobDefinition } from './job';

/**
 * Widening settings changes whose delay has passed take effect (issue 32): each is folded into
 * the merchant's columns with `merchant.settings_updated` and an audit entry, once each (the
 * merchant row is locked and the change leaves it in that transaction). Every read already
 * treats a due change as applied, so the job only makes it permanent and announces it; every
 * few seconds is plenty. Batches until nothing is due.
 */
export const applySettingsChangesJob: JobDefinition = {
  name: 'apply-settings-changes',
  everyMs: () => 5_000,
  run: async (deps) => {
    let applied = 0;
    for (;;) {
      const count = await deps.services.merchantSettings.applyDueChanges(deps.orm.em.fork(), 100);
      applied += count;
      if (count < 100) break;
    }
    if (applied > 0) deps.log.info({ applied }, 'settings changes applied');
  },
};
