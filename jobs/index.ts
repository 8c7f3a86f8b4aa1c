import { generateRatesJob } from './generate-rates.job';
import { pruneRateLimitsJob } from './prune-rate-limits.job';
import { expireOnrampsJob } from './expire-onramps.job';
import { pruneIdempotencyKeysJob } from './prune-idempotency-keys.job';
import type { JobDefinition } from './job';

export const jobs: JobDefinition[] = [
  generateRatesJob,
  pruneRateLimitsJob,
  expireOnrampsJob,
  pruneIdempotencyKeysJob,
];
