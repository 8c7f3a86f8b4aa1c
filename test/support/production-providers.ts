import { BushaStandIn } from './fx-venue-stand-in';
import { RateSourcesStandIn, STAND_IN_SOURCES } from './rate-sources-stand-in';

export const PRODUCTION_BANK_SECRET = 'production-bank-secret-for-tests';
const BUSHA_KEY = 'sk_test_production_stand_in';

/**
 * What a production process needs so it does not refuse to start on simulations: the generic
 * signed bank (`hmac`), four market price sources and the Busha venue, the last two served by
 * stand-ins started here. `env` goes into the processes' environment; `stop` ends the stand-ins.
 */
export async function productionProviders(): Promise<{
  env: Record<string, string>;
  rates: RateSourcesStandIn;
  venue: BushaStandIn;
  stop(): Promise<void>;
}> {
  const rates = await new RateSourcesStandIn().start();
  const venue = await new BushaStandIn(BUSHA_KEY).start();
  return {
    env: {
      BANK_PROVIDERS: 'hmac',
      BANK_WEBHOOK_SECRET: PRODUCTION_BANK_SECRET,
      RATE_SOURCES: STAND_IN_SOURCES.join(','),
      ...rates.baseUrls(),
      FX_VENUE: 'busha',
      BUSHA_SECRET_KEY: BUSHA_KEY,
      BUSHA_BASE_URL: venue.url,
    },
    rates,
    venue,
    stop: async () => {
      await Promise.all([rates.stop(), venue.stop()]);
    },
  };
}
