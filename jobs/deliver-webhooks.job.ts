import type { JobDefinition } from './job';

/**
 * Every WEBHOOK_POLL_MS: claims webhook deliveries that are due (retries on their schedule,
 * and first attempts whose NOTIFY was missed) and starts them. The attempts run in this
 * runner's dispatcher, outside the job, so a 15 s timeout never holds the sweep.
 */
export const deliverWebhooksJob: JobDefinition = {
  name: 'deliver-webhooks',
  everyMs: (deps) => deps.services.config.WEBHOOK_POLL_MS,
  lockLifetimeMs: 10_000,
  run: async (deps) => {
    await deps.webhooks.wake();
  },
};
