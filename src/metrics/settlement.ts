import { Histogram, type Registry } from 'prom-client';
import type { SettledDeposit } from '../deposits';

/**
 * `onramp_settlement_latency_seconds{mode}`: deposit created (transfer received) to SETTLED,
 * observed by the runner that committed the move (so summing across runners counts each
 * deposit once). Buckets span our targets (1 s, 3 s) and the spec's minutes.
 */
export function registerSettlementMetrics(registry: Registry): (settled: SettledDeposit) => void {
  const latency = new Histogram({
    name: 'onramp_settlement_latency_seconds',
    help: 'Deposits reaching SETTLED: seconds from the deposit being created to settled_at.',
    labelNames: ['mode'] as const,
    buckets: [0.1, 0.25, 0.5, 1, 2, 3, 5, 10, 30, 60, 120, 300, 600, 1800, 3600],
    registers: [registry],
  });
  return (settled) =>
    latency.observe(
      { mode: settled.mode },
      Math.max(0, (settled.settledAt.getTime() - settled.createdAt.getTime()) / 1000),
    );
}
