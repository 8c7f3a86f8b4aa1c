import type { Row } from './lib/results';
import { settleBalanceBenchmark } from './settlement.bench';
import { settleOnchainBenchmark } from './settle-onchain.bench';
import { readsBenchmark } from './reads.bench';
import { subscriptionsBenchmark } from './subscriptions.bench';
import { webhooksBenchmark } from './webhooks.bench';

export interface Benchmark {
  name: string;
  description: string;
  run(): Promise<Row[]>;
}

/** Every benchmark, in the order `npm run bench` runs them. */
export const BENCHMARKS: Benchmark[] = [
  settleBalanceBenchmark,
  settleOnchainBenchmark,
  readsBenchmark,
  subscriptionsBenchmark,
  webhooksBenchmark,
];
