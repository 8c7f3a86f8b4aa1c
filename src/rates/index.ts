/**
 * The rates module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { RateService } from './rate.service';
export { newestValidRateIdSql, pricingRateLateralSql, rateColumnSql } from './rate-sql';
