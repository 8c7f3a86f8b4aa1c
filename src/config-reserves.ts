import { z } from 'zod';
import { positiveInt } from './config-fields';

/** Losses and reserves (docs/api.md, "Losses, reserves and sanctions"), spread into `configSchema`. */
export const reserveConfigFields = {
  /**
   * Who bears a bank reversal of a SETTLED deposit: `operator` (the v0.1 rule: the operator
   * absorbs the loss) or `merchant` (its balance is debited `amount_asset`, and may go below
   * zero). The operator overrides it per merchant (`onramp merchants liability`).
   */
  REVERSAL_LIABILITY: z
    .enum(['operator', 'merchant'], { message: 'must be operator or merchant' })
    .default('operator'),
  /** The length of a reserve day in seconds (`hold_days` counts these); tests shorten it. */
  RESERVE_DAY_SECONDS: positiveInt(86_400),
  /** How often a job runner releases the reserve holds that are due (at most a minute). */
  RESERVE_RELEASE_POLL_MS: z.coerce.number().int().min(100).max(60_000).default(10_000),
};
