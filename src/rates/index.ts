/**
 * The rates module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { RateService } from './rate.service';
export { getRate, newestValidRate } from './rate-reads';
export {
  NEWEST_RATE_PER_CURRENCY_SQL,
  newestValidRateIdSql,
  pricingRateLateralSql,
  rateColumnSql,
} from './rate-sql';

import type { Rate } from './rate.entity';
/** A rate as transports and other modules see it: read-only. */
export type RateRecord = Readonly<Rate>;
