import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { SettlementMode } from '../../src/domain/onramp-kinds';
import { createJobRunnerMetrics } from '../../src/metrics/job-runner-metrics';
import { HealthService } from '../../src/system/health.service';
import { serveRunnerHttp } from '../../jobs/runner-http';
import { parsePrometheusText, sampleValue } from '../support/prometheus-text';
import { NOW, database, fakeOrm, quietLog } from '../support/metrics-fixtures';

/**
 * The job runner's registry renders text a strict Prometheus parser accepts, with the metrics docs/operations.md
 * names. The database behind the scrape-time gauges is a stand-in here (the e2e suite scrapes
 * real processes over a real database): one that answers, one that fails, one that hangs.
 */

const config = loadConfig({});

/** Every registry made here, so their deposit timers stop after the run. */
const created: Array<{ close(): void }> = [];
afterAll(() => created.forEach((metrics) => metrics.close()));

function runnerMetrics(orm: MikroORM, log: Logger, env: Record<string, string> = {}) {
  return track(
    createJobRunnerMetrics({
      orm,
      log,
      config: { ...config, ...loadConfig(env) },
      jobNames: ['settle-deposit', 'process-payouts'],
      configuredChains: () => ['BASE', 'ETHEREUM'],
      clock: new ManualClock(NOW),
    }),
  );
}

/** Runner metrics over the stand-in database, with every statement they send. */
function recordingRunnerMetrics(env: Record<string, string> = {}) {
  const queries: string[] = [];
  const orm = fakeOrm((sql) => {
    queries.push(sql);
    return database(sql);
  });
  return { metrics: runnerMetrics(orm, quietLog().log, env), queries };
}

function track<T extends { close(): void }>(metrics: T): T {
  created.push(metrics);
  return metrics;
}

describe('job runner metrics', () => {
  it('render settlement latency, webhook outcomes, queue depth and lag, chain health', async () => {
    const { log } = quietLog();
    const metrics = runnerMetrics(fakeOrm(database), log);
    await metrics.refreshDeposits();
    const createdAt = new Date('2026-11-22T10:00:00Z');
    metrics.observeSettlement({
      depositId: 'dep_1',
      mode: SettlementMode.MERCHANT_BALANCE,
      createdAt,
      settledAt: new Date(createdAt.getTime() + 400),
    });
    metrics.observeSettlement({
      depositId: 'dep_2',
      mode: SettlementMode.AUTO_WITHDRAW,
      createdAt,
      settledAt: new Date(createdAt.getTime() + 2_500),
    });
    metrics.observeWebhookAttempt('succeeded', 0.02);
    metrics.observeWebhookAttempt('succeeded', 0.03);
    metrics.observeWebhookAttempt('retry', 1.2);

    const parsed = parsePrometheusText(await metrics.registry.metrics());
    const latency = 'onramp_settlement_latency_seconds';
    expect(parsed.get(latency)?.type).toBe('histogram');
    expect(sampleValue(parsed, `${latency}_count`, { mode: 'MERCHANT_BALANCE' })).toBe(1);
    expect(sampleValue(parsed, `${latency}_bucket`, { mode: 'MERCHANT_BALANCE', le: '0.5' })).toBe(
      1,
    );
    expect(sampleValue(parsed, `${latency}_sum`, { mode: 'AUTO_WITHDRAW' })).toBeCloseTo(2.5);
    expect(sampleValue(parsed, `${latency}_bucket`, { mode: 'AUTO_WITHDRAW', le: '2' })).toBe(0);

    expect(parsed.get('onramp_webhook_attempts_total')?.type).toBe('counter');
    expect(sampleValue(parsed, 'onramp_webhook_attempts_total', { outcome: 'succeeded' })).toBe(2);
    expect(sampleValue(parsed, 'onramp_webhook_attempts_total', { outcome: 'retry' })).toBe(1);
    expect(sampleValue(parsed, 'onramp_webhook_attempts_total', { outcome: 'lease_lost' })).toBe(0);
    expect(
      sampleValue(parsed, 'onramp_webhook_attempt_duration_seconds_count', { outcome: 'retry' }),
    ).toBe(1);

    const job = (job_name: string) => ({ job_name });
    expect(sampleValue(parsed, 'onramp_job_queue_depth', job('settle-deposit'))).toBe(3);
    expect(sampleValue(parsed, 'onramp_job_queue_lag_seconds', job('settle-deposit'))).toBe(1.5);
    expect(sampleValue(parsed, 'onramp_job_queue_depth', job('process-payouts'))).toBe(0);
    expect(sampleValue(parsed, 'onramp_job_queue_lag_seconds', job('process-payouts'))).toBe(0);

    // Configured chains only; one never probed yet counts as not healthy.
    expect(parsed.get('onramp_chain_healthy')?.samples.map((s) => [s.labels, s.value])).toEqual([
      [{ chain: 'BASE' }, 1],
      [{ chain: 'ETHEREUM' }, 0],
    ]);
    expect(sampleValue(parsed, 'onramp_deposits', { status: 'SETTLED' })).toBe(7);
    expect(sampleValue(parsed, 'process_resident_memory_bytes')).toBeGreaterThan(0);

    // The operator gauges (docs/observability.md), ages by the registry's clock.
    const usdc = { from: 'NGN', to: 'USDC' };
    expect(sampleValue(parsed, 'onramp_rate_age_seconds', usdc)).toBe(42);
    expect(sampleValue(parsed, 'onramp_rate_valid', usdc)).toBe(1);
    expect(sampleValue(parsed, 'onramp_rate_valid', { from: 'NGN', to: 'USDT' })).toBe(0);
    const stuck = { chain: 'BASE', status: 'SIGNED', kind: 'withdrawal' };
    expect(sampleValue(parsed, 'onramp_payouts_stuck', stuck)).toBe(2);
    expect(sampleValue(parsed, 'onramp_payouts_stuck', { chain: 'POLYGON' })).toBe(0);
    expect(sampleValue(parsed, 'onramp_payouts_stuck_oldest_seconds', { chain: 'BASE' })).toBe(
      4_000,
    );
    expect(sampleValue(parsed, 'onramp_webhook_backlog', { state: 'pending' })).toBe(5);
    expect(sampleValue(parsed, 'onramp_webhook_backlog', { state: 'due' })).toBe(1);
    expect(sampleValue(parsed, 'onramp_webhook_backlog_oldest_seconds')).toBe(7);
    expect(parsed.get('onramp_build_info')?.samples).toEqual([
      expect.objectContaining({
        value: 1,
        labels: expect.objectContaining({ node: process.version }),
      }),
    ]);
  });

  it('reuses a database read for METRICS_CACHE_SECONDS: a scrape storm costs one query per gauge', async () => {
    const { metrics, queries } = recordingRunnerMetrics();
    await Promise.all(Array.from({ length: 10 }, () => metrics.registry.metrics()));
    for (let i = 0; i < 10; i += 1) await metrics.registry.metrics();
    for (const table of ['agenda_jobs', 'from rates', 'from payouts', 'from webhook_deliveries']) {
      expect(queries.filter((sql) => sql.includes(table))).toHaveLength(1);
    }
  });

  it('queries the queue once per scrape for both queue gauges (no reuse configured)', async () => {
    const { metrics, queries } = recordingRunnerMetrics({ METRICS_CACHE_SECONDS: '0' });
    await metrics.registry.metrics();
    expect(queries.filter((sql) => sql.includes('agenda_jobs'))).toHaveLength(1);
    await metrics.registry.metrics();
    expect(queries.filter((sql) => sql.includes('agenda_jobs'))).toHaveLength(2);
  });

  it('reads the queue from MongoDB when Agenda keeps its jobs there: empty until it connects', async () => {
    const { metrics, queries } = recordingRunnerMetrics({
      AGENDA_MONGODB_URL: 'mongodb://127.0.0.1:27017/agenda',
    });
    const parsed = parsePrometheusText(await metrics.registry.metrics());
    expect(parsed.get('onramp_job_queue_depth')?.samples).toEqual([]);
    expect(queries.filter((sql) => sql.includes('agenda_jobs'))).toEqual([]);
    expect(parsed.has('onramp_settlement_latency_seconds')).toBe(true);
  });

  it('still answers when the database fails, leaving the database gauges empty', async () => {
    const { log, warn } = quietLog();
    const metrics = runnerMetrics(
      fakeOrm(() => Promise.reject(new Error('down'))),
      log,
    );
    metrics.observeWebhookAttempt('failed', 0.1);
    await metrics.refreshDeposits();
    const parsed = parsePrometheusText(await metrics.registry.metrics());
    for (const name of [
      'onramp_deposits',
      'onramp_job_queue_depth',
      'onramp_job_queue_lag_seconds',
      'onramp_chain_healthy',
      'onramp_rate_age_seconds',
      'onramp_rate_valid',
      'onramp_payouts_stuck',
      'onramp_payouts_stuck_oldest_seconds',
      'onramp_webhook_backlog',
    ]) {
      expect(parsed.get(name)?.samples).toEqual([]);
    }
    // Unlabelled, so present: not a number rather than a false 0.
    expect(sampleValue(parsed, 'onramp_webhook_backlog_oldest_seconds')).toBeNaN();
    expect(sampleValue(parsed, 'onramp_webhook_attempts_total', { outcome: 'failed' })).toBe(1);
    expect(warn).toHaveBeenCalled();
  });
});

describe("the job runner's HTTP server", () => {
  async function serve(orm: MikroORM) {
    const { log } = quietLog();
    const metrics = runnerMetrics(orm, log);
    await metrics.refreshDeposits();
    const http = await serveRunnerHttp({
      host: '127.0.0.1',
      port: 0,
      log,
      probes: {
        phase: () => 'running',
        orm: () => orm,
        health: new HealthService(),
        registry: () => metrics.registry,
      },
    });
    return { http, metrics };
  }

  it('serves /health and /metrics on the port it was given (0: any free one)', async () => {
    const { http } = await serve(
      fakeOrm((sql) => (sql === 'select 1 as ok' ? [{ ok: 1 }] : database(sql))),
    );
    try {
      expect(http.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const health = await fetch(`${http.url}/health`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok', database: 'ok' });
      const scraped = await fetch(`${http.url}/metrics`);
      expect(scraped.status).toBe(200);
      expect(scraped.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const parsed = parsePrometheusText(await scraped.text());
      expect(sampleValue(parsed, 'onramp_deposits', { status: 'SETTLED' })).toBe(7);
      const other = await fetch(`${http.url}/v1/rates`);
      expect(other.status).toBe(404);
      expect(await other.json()).toMatchObject({ error: { code: 'not_found' } });
    } finally {
      await http.close();
    }
  });

  it('with the database down: /health answers 503, /metrics still 200', async () => {
    const { http } = await serve(fakeOrm(() => Promise.reject(new Error('ECONNREFUSED'))));
    try {
      const health = await fetch(`${http.url}/health`);
      expect(health.status).toBe(503);
      expect(await health.json()).toMatchObject({
        status: 'unavailable',
        database: 'down',
        error: { code: 'service_unavailable' },
      });
      const scraped = await fetch(`${http.url}/metrics`);
      expect(scraped.status).toBe(200);
      const parsed = parsePrometheusText(await scraped.text());
      expect(parsed.get('onramp_deposits')?.samples).toEqual([]);
      expect(sampleValue(parsed, 'process_resident_memory_bytes')).toBeGreaterThan(0);
    } finally {
      await http.close();
    }
  });
});
