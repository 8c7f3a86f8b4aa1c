import type { Services } from '../../container';

/**
 * What `/health` and `/readyz` say of each provider: the bank ones' last checks, the others'
 * names. Reported, never required: an outage every process shares must not take them all out
 * of rotation (docs/decisions.md).
 */
export function providersReport(services: Pick<Services, 'bankProviders' | 'config'>) {
  const config = services.config;
  return {
    bank: services.bankProviders.report().map((state) => ({
      name: state.name,
      ok: state.ok,
      checked_at: state.checkedAt ? state.checkedAt.toISOString() : null,
      ...(state.detail ? { detail: state.detail } : {}),
    })),
    rate_sources: [...config.RATE_SOURCES],
    fx_venue: config.FX_VENUE,
  };
}
