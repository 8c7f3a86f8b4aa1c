import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import {
  createJobRunnerMetrics,
  type JobRunnerMetrics,
} from '../../src/metrics/job-runner-metrics';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { parsePrometheusText, sampleValue, type Exposition } from '../support/prometheus-text';
import { WebhookReceiver } from '../support/webhook-receiver';

const STUCK_SECONDS = 600;
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';

/**
 * The runner's operator gauges over a real database and a manual clock: each moves with the
 * action it reports (a rate published then ageing, a payout left unsigned, webhooks owed to a
 * receiver that is down then delivered). No reuse between scrapes here
 * (METRICS_CACHE_SECONDS=0), so every scrape reads the database. The job queue gauges need
 * Agenda's own table and are checked against a running runner (test/e2e/operator-metrics).
 */
describe('operator gauges (rate age, stuck payouts, webhook backlog)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let metrics: JobRunnerMetrics;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock('2026-08-01T09:00:00Z');
    const config = loadConfig({
      METRICS_CACHE_SECONDS: '0',
      PAYOUT_STUCK_ALERT_SECONDS: String(STUCK_SECONDS),
      WEBHOOK_ALLOW_PRIVATE: 'true',
    });
    services = createServices(config, clock);
    kit = depositKit(orm, services, clock);
    metrics = createJobRunnerMetrics({
      orm,
      log: pino({ level: 'silent' }),
      config,
      jobNames: ['generate-rates', 'settle-deposits'],
      configuredChains: () => [],
      clock,
    });
    await receiver.start();
  });
  afterAll(async () => {
    metrics?.close();
    await receiver.stop();
    await orm?.close();
  });

  const scrape = async (): Promise<Exposition> =>
    parsePrometheusText(await metrics.registry.metrics());

  it('build info: one series, value 1, this version and Node', async () => {
    const family = (await scrape()).get('onramp_build_info');
    expect(family?.type).toBe('gauge');
    expect(family?.samples).toEqual([
      {
        name: 'onramp_build_info',
        labels: { version: expect.any(String), commit: expect.any(String), node: process.version },
        value: 1,
      },
    ]);
  });

  it('rate age: 0 when published, grows with the clock; valid until the rate expires', async () => {
    const before = await scrape();
    // Nothing published yet: no age, and every pair invalid.
    expect(before.get('onramp_rate_age_seconds')?.samples).toEqual([]);
    expect(sampleValue(before, 'onramp_rate_valid', { from: 'NGN', to: 'USDC' })).toBe(0);

    await kit.rate('USDC');
    const fresh = await scrape();
    for (const to of ['USDC', 'USDT', 'USD']) {
      expect(sampleValue(fresh, 'onramp_rate_age_seconds', { from: 'NGN', to })).toBe(0);
      expect(sampleValue(fresh, 'onramp_rate_valid', { from: 'NGN', to })).toBe(1);
    }
    clock.advance(90_000);
    const older = await scrape();
    expect(sampleValue(older, 'onramp_rate_age_seconds', { to: 'USDT' })).toBe(90);
    expect(sampleValue(older, 'onramp_rate_valid', { to: 'USDT' })).toBe(1);
    clock.advance(services.config.RATE_TTL_SECONDS * 1000);
    const expired = await scrape();
    expect(sampleValue(expired, 'onramp_rate_age_seconds', { to: 'USDT' })).toBe(
      90 + services.config.RATE_TTL_SECONDS,
    );
    expect(sampleValue(expired, 'onramp_rate_valid', { to: 'USDT' })).toBe(0);
    // A new rate: the age starts again.
    await kit.rate('USDC');
    expect(sampleValue(await scrape(), 'onramp_rate_age_seconds', { to: 'USDC' })).toBe(0);
  });

  it('stuck payouts: a payout left PENDING counts once it is older than PAYOUT_STUCK_ALERT_SECONDS', async () => {
    const merchant = await kit.merchant('Stuck Co');
    const onramp = await kit.onramp(merchant, 'EPHEMERAL', undefined, {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'BASE',
      destinationAddress: DESTINATION,
    });
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    // Converted: PENDING_WITHDRAWAL with its PENDING payout, which nothing signs here.
    expect(await services.settlement.settle(orm.em.fork(), deposit.id)).toBe('PENDING_WITHDRAWAL');
    const stuck = { chain: 'BASE', status: 'PENDING', kind: 'deposit' };

    const young = await scrape();
    expect(sampleValue(young, 'onramp_payouts_stuck', stuck)).toBe(0);
    // Every chain, status and kind is there from the start.
    expect(young.get('onramp_payouts_stuck')?.samples).toHaveLength(3 * 2 * 2);
    expect(sampleValue(young, 'onramp_payouts_stuck_oldest_seconds', { chain: 'BASE' })).toBe(0);

    clock.advance(STUCK_SECONDS * 1000);
    const atThreshold = await scrape();
    // Created exactly PAYOUT_STUCK_ALERT_SECONDS ago: counted (the bound is inclusive).
    expect(sampleValue(atThreshold, 'onramp_payouts_stuck', stuck)).toBe(1);
    clock.advance(30_000);
    const later = await scrape();
    expect(sampleValue(later, 'onramp_payouts_stuck', stuck)).toBe(1);
    expect(sampleValue(later, 'onramp_payouts_stuck', { kind: 'withdrawal' })).toBe(0);
    expect(sampleValue(later, 'onramp_payouts_stuck', { chain: 'POLYGON' })).toBe(0);
    expect(sampleValue(later, 'onramp_payouts_stuck_oldest_seconds', { chain: 'BASE' })).toBe(
      STUCK_SECONDS + 30,
    );

    // Cancelled (final; as a chain outage past its maximum would): no longer stuck.
    const [payout] = await orm.em
      .fork()
      .getConnection()
      .execute<Array<{ id: string }>>('select id from payouts where deposit_id = ?', [deposit.id]);
    expect(await services.payouts.cancel(orm.em.fork(), payout.id, 'chain outage')).toBe(true);
    expect(sampleValue(await scrape(), 'onramp_payouts_stuck', stuck)).toBe(0);
  });

  it('webhook backlog: grows while the receiver is down, ages, and drains once it answers', async () => {
    const merchant = await kit.merchant('Hooked Co');
    await services.webhookEndpoints.set(orm.em.fork(), merchant, receiver.url);
    const before = await scrape();
    const pendingBefore = sampleValue(before, 'onramp_webhook_backlog', { state: 'pending' })!;
    await receiver.stop();

    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '20000');
    await kit.transfer(onramp.accountNumber, '21000');
    const owed = await scrape();
    // Two deposit.created events owed, both due at once.
    expect(sampleValue(owed, 'onramp_webhook_backlog', { state: 'pending' })).toBe(
      pendingBefore + 2,
    );
    expect(sampleValue(owed, 'onramp_webhook_backlog', { state: 'due' })).toBeGreaterThanOrEqual(2);

    // Attempted against the stopped receiver: still pending, now waiting for their retry.
    const attempts = await services.webhookDeliveries.deliverDue(orm.em.fork(), {
      limit: 50,
      perEndpoint: 50,
      skipEndpoints: [],
    });
    expect(attempts.map((a) => a.kind)).toContain('retry');
    const retrying = await scrape();
    expect(sampleValue(retrying, 'onramp_webhook_backlog', { state: 'pending' })).toBe(
      pendingBefore + 2,
    );
    clock.advance(120_000);
    const aged = await scrape();
    expect(sampleValue(aged, 'onramp_webhook_backlog_oldest_seconds')).toBeGreaterThanOrEqual(120);

    // The receiver is back; the retries fall due and are delivered.
    await receiver.start();
    clock.advance(3_600_000);
    await services.webhookDeliveries.deliverDue(orm.em.fork(), {
      limit: 50,
      perEndpoint: 50,
      skipEndpoints: [],
    });
    const drained = await scrape();
    expect(sampleValue(drained, 'onramp_webhook_backlog', { state: 'pending' })).toBe(0);
    expect(sampleValue(drained, 'onramp_webhook_backlog_oldest_seconds')).toBe(0);
    expect(receiver.received.length).toBeGreaterThanOrEqual(2);
  });
});
