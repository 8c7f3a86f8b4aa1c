import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createTestDatabase } from '../support/db';
import { request, setWebhookEndpoint } from '../support/http';
import { autoWithdrawOnramp, balanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { sampleValue, scrape, type Exposition } from '../support/prometheus-text';
import { sql } from '../support/sql';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

const STUCK_SECONDS = 2;

/**
 * The gauges operators page on, scraped from the running processes after real actions: the
 * build on both; on the runner, the webhook backlog while the merchant's receiver is down and
 * after it is back, the rate age once rates stop being published, a payout stuck on a chain
 * the deployment has not configured, and a job due that no runner takes. Tracing is off here:
 * a `traceparent` sent anyway leaves nothing in the database.
 */
describe('operator metrics on the running processes', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let runnerMetrics: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    await receiver.start();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        RATE_INTERVAL_SECONDS: '1',
        PAYOUT_STUCK_ALERT_SECONDS: String(STUCK_SECONDS),
        METRICS_CACHE_SECONDS: '1',
      },
    });
    runnerMetrics = stack.runners[0].metricsUrl!;
    key = (await createMerchant(databaseUrl, 'Paged Co')).api_key;
    await setWebhookEndpoint(stack.url, key, receiver.url);
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  const runner = () => scrape(runnerMetrics);
  const value = (scraped: Exposition, name: string, labels: Record<string, string> = {}) =>
    sampleValue(scraped, name, labels);

  it('build info on both processes: version, the commit the build recorded, Node', async () => {
    const version = JSON.parse(readFileSync(join(__dirname, '..', '..', 'package.json'), 'utf8'))
      .version as string;
    const built = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'dist', 'build-info.json'), 'utf8'),
    ) as { commit: string };
    for (const scraped of [await scrape(`${stack.internalUrl}/metrics`), await runner()]) {
      expect(scraped.get('onramp_build_info')?.samples).toEqual([
        {
          name: 'onramp_build_info',
          labels: { version, commit: built.commit, node: process.version },
          value: 1,
        },
      ]);
    }
  });

  it('webhook backlog: grows while the receiver is down, drains once it is back', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    await receiver.stop();
    // Tracing is off: the header is accepted and nothing is stored.
    const traced = await request(stack.url, 'POST', '/v1/sandbox/deposits', {
      key,
      headers: { traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' },
      body: { account_number: onramp.body.virtual_account.account_number, amount_ngn: '15000' },
    });
    expect(traced.status).toBe(201);
    await sandboxTransfer(stack.url, key, onramp.body.virtual_account.account_number, '16000');
    // Two deposits, each created and settled: four events owed, none deliverable.
    const grown = await eventually(async () => {
      const scraped = await runner();
      return (value(scraped, 'onramp_webhook_backlog', { state: 'pending' }) ?? 0) >= 4
        ? scraped
        : undefined;
    }, 30_000);
    expect(value(grown, 'onramp_webhook_backlog', { state: 'pending' })).toBe(4);
    const oldest = value(grown, 'onramp_webhook_backlog_oldest_seconds')!;
    // It ages: a later scrape sees it older.
    await eventually(async () =>
      value(await runner(), 'onramp_webhook_backlog_oldest_seconds')! >= oldest + 1
        ? true
        : undefined,
    );
    const [row] = await sql<{ trace_parent: string | null }>(
      databaseUrl,
      'select trace_parent from deposits where id = $1',
      [traced.body.deposit_id],
    );
    expect(row.trace_parent).toBeNull();

    // Back up: the retries deliver everything.
    await receiver.start();
    const drained = await eventually(async () => {
      const scraped = await runner();
      return value(scraped, 'onramp_webhook_backlog', { state: 'pending' }) === 0
        ? scraped
        : undefined;
    }, 90_000);
    expect(value(drained, 'onramp_webhook_backlog_oldest_seconds')).toBe(0);
    expect(receiver.received.length).toBeGreaterThanOrEqual(4);
  }, 120_000);

  it('rate age: stays within the interval while rates are published, grows once they stop', async () => {
    const fresh = await eventually(async () => {
      const scraped = await runner();
      return value(scraped, 'onramp_rate_valid', { from: 'NGN', to: 'USDC' }) === 1
        ? scraped
        : undefined;
    });
    expect(value(fresh, 'onramp_rate_age_seconds', { from: 'NGN', to: 'USDC' })).toBeLessThan(5);

    await onrampCli(databaseUrl, ['sandbox', 'rate-source-down', 'on', '--json']);
    try {
      const stale = await eventually(async () => {
        const scraped = await runner();
        return value(scraped, 'onramp_rate_age_seconds', { to: 'USDT' })! > 6 ? scraped : undefined;
      }, 30_000);
      const age = value(stale, 'onramp_rate_age_seconds', { to: 'USDT' })!;
      await eventually(async () =>
        value(await runner(), 'onramp_rate_age_seconds', { to: 'USDT' })! >= age + 1
          ? true
          : undefined,
      );
    } finally {
      await onrampCli(databaseUrl, ['sandbox', 'rate-source-down', 'off', '--json']);
    }
    // Published again: the age falls back.
    await eventually(async () =>
      value(await runner(), 'onramp_rate_age_seconds', { to: 'USDT' })! < 5 ? true : undefined,
    );
  }, 60_000);

  it('stuck payouts: a payout on a chain this deployment has not configured counts after PAYOUT_STUCK_ALERT_SECONDS', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: autoWithdrawOnramp(rate.rate_id, { chain: 'POLYGON' }),
    });
    expect(onramp.status).toBe(201);
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      onramp.body.virtual_account.account_number,
      '15000',
    );
    const stuck = { chain: 'POLYGON', status: 'PENDING', kind: 'deposit' };
    const counted = await eventually(async () => {
      const scraped = await runner();
      return value(scraped, 'onramp_payouts_stuck', stuck) === 1 ? scraped : undefined;
    }, 30_000);
    expect(
      value(counted, 'onramp_payouts_stuck_oldest_seconds', { chain: 'POLYGON' }),
    ).toBeGreaterThanOrEqual(STUCK_SECONDS);
    expect(value(counted, 'onramp_payouts_stuck', { chain: 'BASE' })).toBe(0);
    const read = await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key });
    expect(read.body.status).toBe('PENDING_WITHDRAWAL');
  });

  it('job queue (PostgreSQL store): a job due that no runner takes counts, with its lag', async () => {
    // A job of a name no runner defines (as a job of a retired version would be): due 30 s ago.
    await sql(
      databaseUrl,
      `insert into agenda_jobs (name, next_run_at) values ('nightly-export', now() - interval '30 seconds')`,
    );
    const scraped = await eventually(async () => {
      const s = await runner();
      return value(s, 'onramp_job_queue_depth', { job_name: 'nightly-export' }) === 1
        ? s
        : undefined;
    });
    expect(
      value(scraped, 'onramp_job_queue_lag_seconds', { job_name: 'nightly-export' }),
    ).toBeGreaterThanOrEqual(30);
    // The runner's own jobs are there too (0 or more).
    expect(value(scraped, 'onramp_job_queue_depth', { job_name: 'generate-rates' })).toBeDefined();
  });
});
