import { randomBytes } from 'node:crypto';
import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { resealWebhookSecrets } from '../../src/webhooks';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { TEST_ENCRYPTION_KEY } from '../support/stack';
import { verifyWebhookAt, WebhookReceiver } from '../support/webhook-receiver';

const LIMITS = { limit: 100, perEndpoint: 100, skipEndpoints: [] as string[] };

/** Several endpoints per merchant: fan-out by event, 410, the limit, secrets (real PostgreSQL). */
describe('webhook endpoints (real PostgreSQL, real HTTP receivers)', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  const receivers: WebhookReceiver[] = [];

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    clock = new ManualClock(new Date());
    services = createServices(
      loadConfig({
        WEBHOOK_TIMEOUT_MS: '1000',
        WEBHOOK_ALLOW_PRIVATE: 'true',
        ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      }),
      clock,
    );
    kit = depositKit(orm, services, clock);
    for (let i = 0; i < 3; i += 1) receivers.push(await new WebhookReceiver().start());
  });
  afterAll(async () => {
    for (const r of receivers) await r.stop();
    await orm.close();
  });
  beforeEach(async () => {
    for (const r of receivers) {
      r.received.length = 0;
      r.behaviour = () => 200;
    }
    await sql(`update webhook_deliveries
                  set status = 'FAILED', next_attempt_at = null, last_error = 'test reset',
                      lease_token = null, lease_until = null
                where status = 'PENDING'`);
  });

  const sql = <T>(query: string, params: unknown[] = []) =>
    orm.em.fork().getConnection().execute<T[]>(query, params);
  const create = (merchant: string, url: string, enabledEvents: unknown, description?: string) =>
    services.webhookEndpoints.create(orm.em.fork(), merchant, { url, enabledEvents, description });
  /** Each endpoint's deliveries as event kinds, oldest first. */
  const kindsOf = async (endpointId: string) =>
    (
      await sql<{ kind: string }>(
        `select e.kind from webhook_deliveries d join events e on e.id = d.event_id
          where d.endpoint_id = ? order by e.seq`,
        [endpointId],
      )
    ).map((r) => r.kind);
  /** An event no deposit or withdrawal writes (as the address book's do), through the trigger. */
  const otherEvent = (merchant: string, kind: string) =>
    sql(
      `insert into events (id, kind, merchant_id, snapshot, created_at)
       values ('evt_' || replace(gen_random_uuid()::text, '-', ''), ?, ?, '{}'::jsonb, ?)`,
      [kind, merchant, clock.now()],
    );

  it('fans each event out to the enabled endpoints that chose it, in the same statement', async () => {
    const merchant = await kit.merchant();
    const all = await create(merchant, receivers[0].url, ['*'], 'everything');
    const settled = await create(merchant, receivers[1].url, ['deposit.settled']);
    const disabled = await create(merchant, receivers[2].url, ['deposit.created']);
    await services.webhookEndpoints.update(orm.em.fork(), merchant, disabled.id, {
      status: 'DISABLED',
    });
    const deleted = await create(merchant, receivers[2].url, ['*']);
    await services.webhookEndpoints.remove(orm.em.fork(), merchant, deleted.id);
    expect(all).toMatchObject({
      enabledEvents: ['*'],
      description: 'everything',
      status: 'ENABLED',
    });

    const deposit = await kit.transfer((await kit.onramp(merchant)).accountNumber, '15000');
    await services.settlement.settle(orm.em.fork(), deposit.id);
    await otherEvent(merchant, 'merchant.settings_updated');

    expect(await kindsOf(all.id)).toEqual([
      'deposit.created',
      'deposit.settled',
      'merchant.settings_updated',
    ]);
    expect(await kindsOf(settled.id)).toEqual(['deposit.settled']);
    expect(await kindsOf(disabled.id)).toEqual([]);
    expect(await kindsOf(deleted.id)).toEqual([]);

    // Delivered: each receiver gets its own endpoint's, signed with its own secret.
    const outcomes = await services.webhookDeliveries.deliverDue(orm.em.fork(), LIMITS);
    expect(outcomes.map((o) => o.kind)).toEqual([
      'succeeded',
      'succeeded',
      'succeeded',
      'succeeded',
    ]);
    // (deliverDue attempts side by side; the dispatcher keeps a deposit's order per endpoint)
    expect(
      receivers[0]
        .envelopes()
        .map((e) => e.event)
        .sort(),
    ).toEqual(['deposit.created', 'deposit.settled', 'merchant.settings_updated']);
    expect(receivers[1].envelopes().map((e) => e.event)).toEqual(['deposit.settled']);
    expect(receivers[2].received).toEqual([]);
    for (const r of receivers[0].received) verifyWebhookAt(all.secret, r);
    verifyWebhookAt(settled.secret, receivers[1].received[0]);
    expect(() => verifyWebhookAt(all.secret, receivers[1].received[0])).toThrow();
  });

  it('writes no delivery for an event no endpoint wants', async () => {
    const merchant = await kit.merchant();
    const only = await create(merchant, receivers[0].url, ['withdrawal.completed']);
    await kit.transfer((await kit.onramp(merchant)).accountNumber, '15000');
    const [row] = await sql<{ n: number }>(
      'select count(*)::int as n from webhook_deliveries where merchant_id = ?',
      [merchant],
    );
    expect(row.n).toBe(0);
    expect(await kindsOf(only.id)).toEqual([]);
  });

  it('stops the pending deliveries of a deleted endpoint', async () => {
    const merchant = await kit.merchant();
    const doomed = await create(merchant, receivers[0].url, ['*']);
    const kept = await create(merchant, receivers[1].url, ['*']);
    await kit.transfer((await kit.onramp(merchant)).accountNumber, '15000');
    await services.webhookEndpoints.remove(orm.em.fork(), merchant, doomed.id);
    const rows = await sql<{ endpoint_id: string; status: string; last_error: string | null }>(
      'select endpoint_id, status, last_error from webhook_deliveries where merchant_id = ?',
      [merchant],
    );
    expect(rows.find((r) => r.endpoint_id === doomed.id)).toMatchObject({
      status: 'FAILED',
      last_error: 'Webhook endpoint deleted',
    });
    expect(rows.find((r) => r.endpoint_id === kept.id)).toMatchObject({ status: 'PENDING' });
    await expect(
      services.webhookEndpoints.getById(orm.em.fork(), merchant, doomed.id),
    ).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('a 410 disables that endpoint only; enabling it again brings it back', async () => {
    const merchant = await kit.merchant();
    const gone = await create(merchant, receivers[0].url, ['*']);
    const fine = await create(merchant, receivers[1].url, ['*']);
    receivers[0].behaviour = () => 410;
    await kit.transfer((await kit.onramp(merchant)).accountNumber, '15000');
    const outcomes = await services.webhookDeliveries.deliverDue(orm.em.fork(), LIMITS);
    expect(outcomes.map((o) => o.kind).sort()).toEqual(['endpoint_gone', 'succeeded']);
    const get = (id: string) => services.webhookEndpoints.getById(orm.em.fork(), merchant, id);
    expect(await get(gone.id)).toMatchObject({ status: 'DISABLED', enabled: false });
    expect((await get(gone.id)).disabledReason).toMatch(/410/);
    expect(await get(fine.id)).toMatchObject({ status: 'ENABLED' });

    await kit.transfer((await kit.onramp(merchant)).accountNumber, '16000');
    expect(await kindsOf(gone.id)).toEqual(['deposit.created']);
    expect(await kindsOf(fine.id)).toEqual(['deposit.created', 'deposit.created']);

    await services.webhookEndpoints.update(orm.em.fork(), merchant, gone.id, { status: 'ENABLED' });
    expect(await get(gone.id)).toMatchObject({ status: 'ENABLED', disabledReason: null });
  });

  it('counts dispatcher slots per endpoint, not per merchant', async () => {
    const merchant = await kit.merchant();
    const a = await create(merchant, receivers[0].url, ['*']);
    const b = await create(merchant, receivers[1].url, ['*']);
    const onramp = await kit.onramp(merchant);
    for (let i = 0; i < 3; i += 1) await kit.transfer(onramp.accountNumber, '15000');
    const claimed = await services.webhookDeliveries.claimDue(orm.em.fork(), {
      limit: 10,
      perEndpoint: 1,
      skipEndpoints: [],
    });
    expect(claimed.map((c) => c.endpointId).sort()).toEqual([a.id, b.id].sort());
    const skipped = await services.webhookDeliveries.claimDue(orm.em.fork(), {
      limit: 10,
      perEndpoint: 10,
      skipEndpoints: [a.id],
    });
    expect(new Set(skipped.map((c) => c.endpointId))).toEqual(new Set([b.id]));
  });

  it('test sends a signed test.ping to that endpoint only', async () => {
    const merchant = await kit.merchant();
    await create(merchant, receivers[0].url, ['*']);
    const tested = await create(merchant, receivers[1].url, ['*']);
    const delivery = await services.webhookLog.sendTest(orm.em.fork(), merchant, tested.id);
    expect(delivery).toMatchObject({ endpointId: tested.id, eventKind: 'test.ping' });
    await services.webhookDeliveries.deliverDue(orm.em.fork(), LIMITS);
    expect(receivers[0].received).toEqual([]);
    expect(receivers[1].envelopes()).toEqual([
      expect.objectContaining({
        event: 'test.ping',
        data: expect.objectContaining({ endpoint_id: tested.id }),
      }),
    ]);
    verifyWebhookAt(tested.secret, receivers[1].received[0]);
    // Another merchant's endpoint is unknown.
    await expect(
      services.webhookLog.sendTest(orm.em.fork(), await kit.merchant(), tested.id),
    ).rejects.toMatchObject({ code: ErrorCode.NotFound });
  });

  it('refuses unknown event names and an empty list', async () => {
    const merchant = await kit.merchant();
    for (const events of [[], ['deposit.nope'], ['*', 'deposit.created'], 'deposit.created']) {
      await expect(create(merchant, receivers[0].url, events)).rejects.toMatchObject({
        code: ErrorCode.InvalidParameter,
      });
    }
  });

  it('allows 10 endpoints per merchant, also under concurrency', async () => {
    const merchant = await kit.merchant();
    const results = await Promise.allSettled(
      Array.from({ length: 14 }, () => create(merchant, receivers[0].url, ['*'])),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(10);
    const refused = results.filter((r) => r.status === 'rejected');
    expect(refused).toHaveLength(4);
    for (const r of refused) {
      expect((r as PromiseRejectedResult).reason).toBeInstanceOf(DomainError);
      expect((r as PromiseRejectedResult).reason.code).toBe(ErrorCode.LimitExceeded);
    }
    expect(await services.webhookEndpoints.list(orm.em.fork(), merchant)).toHaveLength(10);
    // The single-endpoint operation acts on the first and creates nothing more.
    const first = (await services.webhookEndpoints.list(orm.em.fork(), merchant))[0];
    expect(
      (await services.webhookEndpoints.set(orm.em.fork(), merchant, receivers[1].url)).id,
    ).toBe(first.id);
  });

  it('re-seals the secrets of every endpoint', async () => {
    const merchant = await kit.merchant();
    const endpoints = [
      await create(merchant, receivers[0].url, ['*']),
      await create(merchant, receivers[1].url, ['deposit.created']),
      await create(merchant, receivers[2].url, ['deposit.settled']),
    ];
    const plaintexts = endpoints.map(() => `whsec_${randomBytes(32).toString('base64')}`);
    for (const [i, e] of endpoints.entries()) {
      await sql('update webhook_endpoints set secret = ? where id = ?', [plaintexts[i], e.id]);
    }
    const resealed = await resealWebhookSecrets(
      orm.em.fork(),
      services.encryption.box,
      services.webhookEndpoints,
    );
    expect(resealed).toBeGreaterThanOrEqual(3);
    const rows = await sql<{ id: string; secret: string }>(
      'select id, secret from webhook_endpoints where merchant_id = ?',
      [merchant],
    );
    expect(rows).toHaveLength(3);
    for (const row of rows) expect(row.secret).toMatch(/^enc:v1:/);
    for (const [i, e] of endpoints.entries()) {
      const opened = await services.webhookEndpoints.getById(orm.em.fork(), merchant, e.id);
      expect(opened.secret).toBe(plaintexts[i]);
    }
  });
});
