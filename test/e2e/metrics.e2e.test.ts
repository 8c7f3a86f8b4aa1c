import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { startOwnPostgres } from '../support/own-postgres';
import { request, setWebhookEndpoint } from '../support/http';
import { autoWithdrawOnramp, balanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { sampleValue, scrape, type Exposition } from '../support/prometheus-text';
import {
  baseEnv,
  createMerchant,
  eventually,
  startGateway,
  startRunner,
  startStack,
  type Stack,
} from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const HTTP = 'onramp_http_request_duration_seconds';
const LATENCY = 'onramp_settlement_latency_seconds';

/**
 * `/metrics` on both processes: Prometheus text that a strict parser accepts, whose counters
 * move with real traffic (REST requests, sandbox deposits settling to a balance and on-chain,
 * webhooks delivered to a real receiver), and which still answers when the database is gone.
 */
describe('metrics of the gateway and the job runner', () => {
  let chains: TestChains;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let runnerMetrics: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    chains = await startTestChains();
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        ...chains.env,
        RATE_LIMIT_PER_MINUTE: '100000',
        PAYOUT_POLL_MS: '300',
        // Deposits are counted on a timer, not per scrape: a short one for this test.
        DEPOSITS_GAUGE_REFRESH_SECONDS: '1',
      },
    });
    runnerMetrics = stack.runners[0].metricsUrl!;
    key = (await createMerchant(databaseUrl, 'Metered Co')).api_key;
    await receiver.start();
    await setWebhookEndpoint(stack.url, key, receiver.url);
  });
  afterAll(async () => {
    await stack?.stop();
    await chains?.stop();
    await receiver.stop();
  });

  const value = (scraped: Exposition, name: string, labels: Record<string, string> = {}) =>
    sampleValue(scraped, name, labels) ?? 0;

  it('the runner serves its bound address, /health, and nothing else', async () => {
    expect(runnerMetrics).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
    const base = runnerMetrics.replace(/\/metrics$/, '');
    const health = await request(base, 'GET', '/health');
    expect(health.status).toBe(200);
    // The chains' RPC nodes are reported beside the database (informative: they never fail it).
    const { chains, ...report } = health.body;
    expect(report).toEqual({ status: 'ok', database: 'ok' });
    expect(Object.keys(chains).sort()).toEqual(['BASE', 'ETHEREUM', 'POLYGON']);
    for (const chain of Object.keys(chains)) {
      expect(chains[chain].nodes).toEqual([expect.objectContaining({ node: 1, up: true })]);
    }
    const other = await request(base, 'GET', '/v1/rates');
    expect(other.status).toBe(404);
    expect(other.body.error.code).toBe('not_found');
    expect((await request(base, 'POST', '/metrics')).status).toBe(404);
  });

  it('counters move with requests, settlements and webhooks', async () => {
    const [gatewayBefore, runnerBefore] = await Promise.all([
      scrape(`${stack.internalUrl}/metrics`),
      scrape(runnerMetrics),
    ]);
    // No key needed on the internal listener, and the gateway serves the text format there.
    expect((await request(stack.internalUrl, 'GET', '/metrics')).text).toContain('# TYPE onramp_');
    for (const scraped of [gatewayBefore, runnerBefore]) {
      // Node's defaults under their standard names, the service's own under onramp_.
      expect(value(scraped, 'process_resident_memory_bytes')).toBeGreaterThan(0);
      expect(value(scraped, 'process_cpu_seconds_total')).toBeGreaterThan(0);
      expect(value(scraped, 'nodejs_heap_size_used_bytes')).toBeGreaterThan(0);
      expect(scraped.has('onramp_process_resident_memory_bytes')).toBe(false);
      expect(scraped.get('onramp_deposits')?.type).toBe('gauge');
    }
    expect(gatewayBefore.get(HTTP)?.type).toBe('histogram');
    expect(runnerBefore.get(LATENCY)?.type).toBe('histogram');
    // Every job has queue gauges; the runner has just started, so little is due.
    for (const name of ['onramp_job_queue_depth', 'onramp_job_queue_lag_seconds']) {
      expect(
        sampleValue(runnerBefore, name, { job_name: 'settle-deposits' }),
      ).toBeGreaterThanOrEqual(0);
      expect(sampleValue(runnerBefore, name, { job_name: 'process-payouts' })).toBeDefined();
    }
    const attemptsBefore = value(runnerBefore, 'onramp_webhook_attempts_total', {
      outcome: 'succeeded',
    });

    // Traffic: a rate, two onramps, three balance deposits and one on-chain, reads, one 404.
    const rate = await freshRate(stack.url, key);
    const balance = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    expect(balance.status).toBe(201);
    const onChain = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: autoWithdrawOnramp(rate.rate_id),
    });
    expect(onChain.status).toBe(201);
    const deposits: string[] = [];
    for (const amount of ['15000', '16000', '17000']) {
      const deposit = await sandboxTransfer(
        stack.url,
        key,
        balance.body.virtual_account.account_number,
        amount,
      );
      deposits.push(deposit.deposit_id);
    }
    const withdrawn = await sandboxTransfer(
      stack.url,
      key,
      onChain.body.virtual_account.account_number,
      '15000',
    );
    deposits.push(withdrawn.deposit_id);
    for (const id of deposits) {
      await eventually(async () => {
        const read = await request(stack.url, 'GET', `/v1/deposits/${id}`, { key });
        return read.body.status === 'SETTLED' ? true : undefined;
      }, 30_000);
    }
    expect((await request(stack.url, 'GET', '/v1/no-such-route')).status).toBe(404);
    // created + settled per balance deposit; created + pending_withdrawal + settled on-chain.
    await eventually(async () => (receiver.received.length >= 3 * 2 + 3 ? true : undefined));

    const [gatewayAfter, runnerAfter] = await Promise.all([
      eventually(async () => {
        const scraped = await scrape(`${stack.internalUrl}/metrics`);
        // The last GET's onResponse runs just after its answer was sent; the deposit gauge
        // catches up at its next count.
        return value(scraped, `${HTTP}_count`, { route: 'unmatched' }) >
          value(gatewayBefore, `${HTTP}_count`, { route: 'unmatched' }) &&
          value(scraped, 'onramp_deposits', { status: 'SETTLED' }) -
            value(gatewayBefore, 'onramp_deposits', { status: 'SETTLED' }) >=
            4
          ? scraped
          : undefined;
      }),
      eventually(async () => {
        const scraped = await scrape(runnerMetrics);
        const succeeded = value(scraped, 'onramp_webhook_attempts_total', {
          outcome: 'succeeded',
        });
        // The runner's deposit gauge catches up at its own next count too.
        const settled =
          value(scraped, 'onramp_deposits', { status: 'SETTLED' }) -
          value(runnerBefore, 'onramp_deposits', { status: 'SETTLED' });
        return succeeded >= attemptsBefore + 9 && settled >= 4 ? scraped : undefined;
      }),
    ]);

    // Request latency, by route pattern: never the raw URL.
    const grew = (labels: Record<string, string>) =>
      value(gatewayAfter, `${HTTP}_count`, labels) - value(gatewayBefore, `${HTTP}_count`, labels);
    expect(
      grew({ method: 'GET', route: '/v1/deposits/:id', status_code: '200' }),
    ).toBeGreaterThanOrEqual(deposits.length);
    expect(grew({ method: 'POST', route: '/v1/onramp', status_code: '201' })).toBe(2);
    expect(grew({ method: 'POST', route: '/v1/sandbox/deposits', status_code: '201' })).toBe(4);
    expect(grew({ route: 'unmatched', status_code: '404' })).toBe(1);
    const routes = new Set(gatewayAfter.get(HTTP)!.samples.map((s) => s.labels.route));
    for (const route of routes) expect(route).not.toMatch(/dep_|onr_|no-such-route/);

    // Deposits by status, from the database: the same on both processes.
    for (const [before, after] of [
      [gatewayBefore, gatewayAfter],
      [runnerBefore, runnerAfter],
    ]) {
      expect(
        value(after, 'onramp_deposits', { status: 'SETTLED' }) -
          value(before, 'onramp_deposits', { status: 'SETTLED' }),
      ).toBe(4);
      expect(sampleValue(after, 'onramp_deposits', { status: 'REVERSED' })).toBe(0);
    }

    // Settlement latency: one observation per deposit, by mode, created to settled.
    const settledCount = (scraped: Exposition, mode: string) =>
      value(scraped, `${LATENCY}_count`, { mode });
    expect(
      settledCount(runnerAfter, 'MERCHANT_BALANCE') -
        settledCount(runnerBefore, 'MERCHANT_BALANCE'),
    ).toBe(3);
    expect(
      settledCount(runnerAfter, 'AUTO_WITHDRAW') - settledCount(runnerBefore, 'AUTO_WITHDRAW'),
    ).toBe(1);
    expect(value(runnerAfter, `${LATENCY}_sum`, { mode: 'MERCHANT_BALANCE' })).toBeGreaterThan(0);

    // Webhooks: every one of them answered 200.
    expect(
      value(runnerAfter, 'onramp_webhook_attempts_total', { outcome: 'succeeded' }) -
        attemptsBefore,
    ).toBe(receiver.received.length);
    expect(value(runnerAfter, 'onramp_webhook_attempts_total', { outcome: 'failed' })).toBe(0);
    expect(
      value(runnerAfter, 'onramp_webhook_attempt_duration_seconds_count', {
        outcome: 'succeeded',
      }),
    ).toBe(value(runnerAfter, 'onramp_webhook_attempts_total', { outcome: 'succeeded' }));

    // Chain health: every configured chain, healthy (the sweep probes each one).
    for (const chain of ['BASE', 'ETHEREUM', 'POLYGON']) {
      expect(sampleValue(runnerAfter, 'onramp_chain_healthy', { chain })).toBe(1);
    }
    // Queue gauges are numbers of jobs and seconds, never negative.
    for (const sample of runnerAfter.get('onramp_job_queue_lag_seconds')!.samples) {
      expect(sample.value).toBeGreaterThanOrEqual(0);
    }
  });
});

/** Both processes with their database stopped: they keep answering /metrics and stay up. */
describe('metrics while the database is down', () => {
  it('the gateway and the runner still answer /metrics, leaving the database gauges out', async () => {
    const postgres = await startOwnPostgres('metrics-outage');
    try {
      const env = baseEnv(postgres.url, { DEPOSITS_GAUGE_REFRESH_SECONDS: '1' });
      const gateway = await startGateway(env);
      const runner = await startRunner(env);
      try {
        const before = await eventually(async () => {
          const scraped = await scrape(`${gateway.internalUrl}/metrics`);
          return sampleValue(scraped, 'onramp_deposits', { status: 'SETTLED' }) === 0
            ? scraped
            : undefined;
        });
        expect(sampleValue(before, 'onramp_deposits', { status: 'SETTLED' })).toBe(0);
        await postgres.stop();

        const started = performance.now();
        const first = await scrape(`${gateway.internalUrl}/metrics`);
        expect(performance.now() - started).toBeLessThan(5_000);
        expect(sampleValue(first, 'process_resident_memory_bytes')).toBeGreaterThan(0);
        // The next count fails and leaves the gauge out; scrapes keep answering meanwhile.
        const scraped = await eventually(async () => {
          const again = await scrape(`${gateway.internalUrl}/metrics`);
          return again.get('onramp_deposits')?.samples.length === 0 ? again : undefined;
        });
        expect(sampleValue(scraped, 'process_resident_memory_bytes')).toBeGreaterThan(0);
        // The scrape before this one counted.
        expect(sampleValue(scraped, `${HTTP}_count`, { route: '/metrics' })).toBeGreaterThan(0);
        // The warning reaches the log pipe a moment after the answer.
        await eventually(async () =>
          gateway.logs.join('\n').includes('skipped in this scrape: database unavailable')
            ? true
            : undefined,
        );
        // The runner outlives the outage too: health says so, metrics still answer.
        const health = await fetch(runner.metricsUrl!.replace(/\/metrics$/, '/health'));
        expect(health.status).toBe(503);
        await eventually(async () => {
          const runnerScrape = await scrape(runner.metricsUrl!);
          return runnerScrape.get('onramp_deposits')?.samples.length === 0 ? true : undefined;
        });
        await new Promise((r) => setTimeout(r, 3_000));
        expect(runner.child.exitCode).toBeNull();
      } finally {
        await gateway.stop();
        await runner.stop();
      }
    } finally {
      await postgres.stop();
    }
  });
});
