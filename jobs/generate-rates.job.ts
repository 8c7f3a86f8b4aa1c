import { SandboxRateSource } from '../src/adapters/fx/sandbox-rate-source';
import { RateSourceUnavailableError, type RateSource } from '../src/adapters/fx/rate-source';
import { marketRateSource } from '../src/adapters/fx/rate-sources';
import { rateSourcesAreSimulated } from '../src/config-rates';
import type { JobDefinition, JobDeps } from './job';

/** One rate source per process, so the sandbox walk continues from its last step. */
let source: RateSource | undefined;

/** RATE_SOURCES=sandbox (the default): the simulated walk; otherwise the median of real ones. */
function rateSource(deps: JobDeps): RateSource {
  const config = deps.services.config;
  source ??= rateSourcesAreSimulated(config)
    ? new SandboxRateSource({
        previousNgnPerUsd: () => deps.services.rates.latestMarketRate(deps.orm.em.fork(), 'USD'),
        // Only the operator's switch stops publication; a merchant's scenario hides rates from it alone.
        isDown: () => deps.services.sandbox.isDeploymentRateSourceDown(deps.orm.em.fork()),
      })
    : marketRateSource(config, deps.services.clock, deps.log);
  return source;
}

/** Publishes NGN quotes every RATE_INTERVAL_SECONDS; each is valid RATE_TTL_SECONDS. */
export const generateRatesJob: JobDefinition = {
  name: 'generate-rates',
  everyMs: (deps) => deps.services.config.RATE_INTERVAL_SECONDS * 1000,
  run: async (deps) => {
    try {
      const outcome = await deps.services.rates.publish(deps.orm.em.fork(), rateSource(deps));
      if (outcome.published) {
        deps.log.info(
          { rates: outcome.rates.map((r) => ({ id: r.id, to: r.to, rate: r.rate })) },
          'rates published',
        );
      }
    } catch (error) {
      // The last rates stay valid until they expire; after that quotes answer rate_unavailable.
      if (error instanceof RateSourceUnavailableError) {
        deps.log.warn({ reason: error.message }, 'rate source unavailable; no rate published');
        return;
      }
      throw error;
    }
  },
};
