import { generateRatesJob } from './generate-rates.job';
import { pruneRateLimitsJob } from './prune-rate-limits.job';
import type { JobDefinition } from './job';

export const jobs: JobDefinition[] = [generateRatesJob, pruneRateLimitsJob];
