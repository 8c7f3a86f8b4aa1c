/**
 * The system module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { CHAIN_HEALTH_SQL, ChainHealthService } from './chain-health.service';
export { HealthService, type HealthReport } from './health.service';
export { IdempotencyService, sealContext } from './idempotency.service';
export type { IdempotencyClaim, IdempotencyScope } from './idempotency.service';
export { resealIdempotentResponses } from './idempotency-reseal';
export { addRateLimitHits, pruneRateLimitWindows, readRateLimitHits } from './rate-limit-windows';
