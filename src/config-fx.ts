import { z } from 'zod';

/** Where settlement sells NGN for USD: the sandbox venue, or Busha's quote-then-execute API. */
export const FX_VENUES = ['sandbox', 'busha'] as const;
export type FxVenueName = (typeof FX_VENUES)[number];

/** Busha's live API (docs.busha.io, "API Environments"); tests point it at a stand-in. */
export const BUSHA_LIVE_BASE_URL = 'https://api.busha.co';

/** The FX venue's settings; spread into `configSchema` (src/config.ts). */
export const fxConfigFields = {
  /** `sandbox` (default): simulated fills. `busha`: Busha Business quotes and transfers. */
  FX_VENUE: z.enum(FX_VENUES).default('sandbox'),
  /**
   * Busha's secret API key as the dashboard gives it (already base64), sent as
   * `Authorization: Bearer …`. Required when FX_VENUE=busha.
   */
  BUSHA_SECRET_KEY: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Busha's API base URL; the live one unless tests or the sandbox (api.sandbox.busha.so). */
  BUSHA_BASE_URL: z.string().url().default(BUSHA_LIVE_BASE_URL),
  /**
   * `X-BU-PROFILE-ID`: the Busha profile whose balances convert (a customer's, `CUS_…`).
   * Unset: the business's own balances.
   */
  BUSHA_PROFILE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_]{1,64}$/, 'must be a Busha profile id such as BUS_… or CUS_…')
    .optional(),
  /** What NGN is sold for at Busha: a USD stablecoin (USDT, USDC) or USD itself. */
  BUSHA_TARGET_CURRENCY: z.enum(['USDT', 'USDC', 'USD']).default('USDT'),
  /**
   * How long one Busha request may take. An order's lease (one process works on an order at a
   * time) is twice this, renewed before each request.
   */
  BUSHA_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(15_000),
};

/** The problems between FX settings, each naming the variable to fix (for `superRefine`). */
export function fxConfigProblems(config: {
  FX_VENUE: FxVenueName;
  BUSHA_SECRET_KEY?: string;
}): Array<{ path: string[]; message: string }> {
  if (config.FX_VENUE === 'busha' && !config.BUSHA_SECRET_KEY) {
    return [{ path: ['BUSHA_SECRET_KEY'], message: 'is required when FX_VENUE is busha' }];
  }
  return [];
}

/** True when settlement's conversions are simulated (production must refuse to start so). */
export function fxVenueIsSimulated(config: { FX_VENUE: FxVenueName }): boolean {
  return config.FX_VENUE === 'sandbox';
}
