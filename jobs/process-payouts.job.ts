import { CHAINS } from '../src/domain/assets';
import type { JobDefinition } from './job';

/**
 * Every PAYOUT_POLL_MS: per chain, probe the node, sign payouts whose trigger was lost,
 * enforce the outage maximum, and walk in-flight payouts to their receipts. Chains are swept
 * side by side, so a dead node's timeouts do not hold up the others.
 */
export const processPayoutsJob: JobDefinition = {
  name: 'process-payouts',
  everyMs: (deps) => deps.services.config.PAYOUT_POLL_MS,
  // Sweeps are safe to overlap; a runner killed mid-sweep must not stall the next for long.
  lockLifetimeMs: 10_000,
  run: async (deps) => {
    const reports = await Promise.all(
      CHAINS.map((chain) =>
        deps.services.payoutSweep.sweep(deps.orm.em.fork(), chain).catch((error: unknown) => {
          deps.log.warn({ err: error, chain }, 'payout sweep failed');
          return null;
        }),
      ),
    );
    for (const report of reports) {
      if (!report) continue;
      const { chain, healthy, foreign, ...counts } = report;
      if (foreign.length > 0) {
        deps.log.error(
          { chain, nonces: foreign },
          'hot wallet nonces used by transactions we did not sign; payouts at them cannot be mined',
        );
      }
      if (Object.values(counts).some((n) => n > 0)) {
        deps.log.info({ chain, healthy, ...counts }, 'payout sweep');
      }
    }
  },
};
