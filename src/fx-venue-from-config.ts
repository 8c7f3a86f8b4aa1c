import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from './clock';
import type { Config } from './config';
import { BushaClient } from './adapters/fx/busha/busha-client';
import { BushaFxVenue } from './adapters/fx/busha/busha-fx-venue';
import type { FxVenue } from './adapters/fx/fx-venue';
import { SandboxFxVenue } from './sandbox';

/** The venue `FX_VENUE` names, bound to an EntityManager per settlement batch. */
export function fxVenueFromConfig(config: Config, clock: Clock): (em: EntityManager) => FxVenue {
  if (config.FX_VENUE === 'busha') {
    // Config validation requires the key with this venue (src/config-fx.ts).
    const client = new BushaClient({
      baseUrl: config.BUSHA_BASE_URL,
      secretKey: config.BUSHA_SECRET_KEY!,
      profileId: config.BUSHA_PROFILE_ID,
      timeoutMs: config.BUSHA_TIMEOUT_MS,
    });
    const options = {
      targetCurrency: config.BUSHA_TARGET_CURRENCY,
      leaseMs: 2 * config.BUSHA_TIMEOUT_MS,
    };
    return (em) => new BushaFxVenue(em, clock, client, options);
  }
  return (em) => new SandboxFxVenue(em, { latencyMs: config.SANDBOX_FX_LATENCY_MS });
}
