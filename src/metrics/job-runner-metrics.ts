import type { MikroORM } from '@mikro-orm/postgresql';
import type { Db } from 'mongodb';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '../clock';
import type { Config } from '../config';
import type { SettlementObserver } from '../deposits';
import { registerChainHealthGauge } from './chain-health';
import { registerChainNodeMetrics, type ChainNodeMetricsOptions } from './chain-nodes';
import { registerDepositsGauge } from './deposits';
import { mongoQueue, postgresQueue, registerJobQueueGauges } from './job-queue';
import { registerLogMetrics } from './logs';
import { createRegistry } from './registry';
import { registerRateAgeGauges } from './rate-age';
import { registerSettlementMetrics } from './settlement';
import { registerStuckPayoutGauges } from './stuck-payouts';
import { registerWebhookBacklogGauges } from './webhook-backlog';
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
 * The job runner's `/metrics`: process defaults and build, deposits, settlement latency,
 * webhook attempts and backlog, the Agenda queue (either store), chain health, rate age and
 * stuck payouts (docs/observability.md). The database-read gauges are the same on every
 * runner: aggregate across runners with max().
 */
export function createJobRunnerMetrics(options: {
  orm: MikroORM;
  log: Logger;
  config: Config;
  jobNames: readonly string[];
  configuredChains: () => readonly string[];
  /** The process's log output (src/logger.ts): its dropped lines become a counter. */
  logOutput?: { droppedLines(): number };
  /** The ages are computed by it (default: the system clock). */
  clock?: Clock;
  /** Agenda's MongoDB database once connected, when AGENDA_MONGODB_URL is set. */
  mongoDb?: () => Db | undefined;
  /** RPC nodes and hot wallets per chain (src/metrics/chain-nodes.ts). */
  chainNodes?: Omit<ChainNodeMetricsOptions, 'log'>;
}): JobRunnerMetrics {
  const { orm, log, config } = options;
  const clock = options.clock ?? systemClock;
  const cacheMs = config.METRICS_CACHE_SECONDS * 1000;
  const registry = createRegistry({ commit: config.ONRAMP_COMMIT });
  if (options.logOutput) registerLogMetrics(registry, options.logOutput);
  const deposits = registerDepositsGauge(
    registry,
    options.orm,
    options.log,
    options.config.DEPOSITS_GAUGE_REFRESH_SECONDS * 1000,
  );
  const observeSettlement = registerSettlementMetrics(registry);
  const observeWebhookAttempt = registerWebhookMetrics(registry);
  const queue = config.AGENDA_MONGODB_URL
    ? mongoQueue(options.mongoDb ?? (() => undefined), log)
    : postgresQueue(orm, log);
  registerJobQueueGauges(registry, queue, { jobNames: options.jobNames, clock, cacheMs });
  registerChainHealthGauge(registry, orm, log, options.configuredChains);
  registerRateAgeGauges(registry, orm, log, clock, cacheMs);
  registerStuckPayoutGauges(registry, orm, log, clock, {
    stuckSeconds: config.PAYOUT_STUCK_ALERT_SECONDS,
    cacheMs,
  });
  registerWebhookBacklogGauges(registry, orm, log, clock, cacheMs);
  if (options.chainNodes) {
    registerChainNodeMetrics(registry, { ...options.chainNodes, log });
  }
  return {
    registry,
    observeSettlement,
    observeWebhookAttempt,
    refreshDeposits: deposits.refresh,
    close: deposits.stop,
  };
}
