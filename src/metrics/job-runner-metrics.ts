import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import type { Config } from '../config';
import type { SettlementObserver } from '../deposits';
import { registerChainHealthGauge } from './chain-health';
import { registerChainNodeMetrics, type ChainNodeMetricsOptions } from './chain-nodes';
import { registerDepositsGauge } from './deposits';
import { registerJobQueueGauges } from './job-queue';
import { registerLogMetrics } from './logs';
import { createRegistry } from './registry';
import { registerSettlementMetrics } from './settlement';
import { registerWebhookMetrics, type WebhookAttemptObserver } from './webhooks';

export interface JobRunnerMetrics {
  registry: Registry;
  observeSettlement: SettlementObserver;
  observeWebhookAttempt: WebhookAttemptObserver;
  /** Counts deposits now instead of at the next tick of the timer. */
  refreshDeposits(): Promise<void>;
  /** Stops the deposit gauge's timer. */
  close(): void;
}

/**
 * The job runner's `/metrics`: process defaults, deposits, settlement latency, webhook
 * attempts, the Agenda queue (PostgreSQL store only) and chain health.
 */
export function createJobRunnerMetrics(options: {
  orm: MikroORM;
  log: Logger;
  config: Config;
  jobNames: readonly string[];
  configuredChains: () => readonly string[];
  /** The process's log output (src/logger.ts): its dropped lines become a counter. */
  logOutput?: { droppedLines(): number };
  /** RPC nodes and hot wallets per chain (src/metrics/chain-nodes.ts). */
  chainNodes?: Omit<ChainNodeMetricsOptions, 'log'>;
}): JobRunnerMetrics {
  const registry = createRegistry();
  if (options.logOutput) registerLogMetrics(registry, options.logOutput);
  const deposits = registerDepositsGauge(
    registry,
    options.orm,
    options.log,
    options.config.DEPOSITS_GAUGE_REFRESH_SECONDS * 1000,
  );
  const observeSettlement = registerSettlementMetrics(registry);
  const observeWebhookAttempt = registerWebhookMetrics(registry);
  // With the MongoDB store the queue lives there; these gauges are left out.
  if (!options.config.AGENDA_MONGODB_URL) {
    registerJobQueueGauges(registry, options.orm, options.log, options.jobNames);
  }
  registerChainHealthGauge(registry, options.orm, options.log, options.configuredChains);
  if (options.chainNodes) {
    registerChainNodeMetrics(registry, { ...options.chainNodes, log: options.log });
  }
  return {
    registry,
    observeSettlement,
    observeWebhookAttempt,
    refreshDeposits: deposits.refresh,
    close: deposits.stop,
  };
}
