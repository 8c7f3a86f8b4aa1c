import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { TEST_ENCRYPTION_KEY } from '../support/stack';
import { createServices, environmentOf, type Services } from '../../src/container';
import { publicDeposit } from '../../src/deposits/public-deposit';
import { plannedRetryOffsetMs, JITTER } from '../../src/domain/webhook-schedule';
import { DomainError } from '../../src/domain/errors';
import { HttpWebhookSender } from '../../src/adapters/webhook/webhook-sender';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import pino from 'pino';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';
import { baseEnv, eventually, startGateway, type Gateway } from '../support/stack';
import { request } from '../support/http';
import { verifyWebhookAt, WebhookReceiver } from '../support/webhook-receiver';

const LIMITS = { limit: 100, perEndpoint: 100, skipEndpoints: [] as string[] };

describe('webhook delivery (real PostgreSQL, real HTTP receiver)', () => {
  let databaseUrl: string;
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    orm = await openTestOrm(databaseUrl);
    // Time only moves forward here (rates are published at the clock's time).
    clock = new ManualClock(new Date());
    // The receiver listens on loopback, which only WEBHOOK_ALLOW_PRIVATE lets webhooks reach.
    services = createServices(
      loadConfig({ WEBHOOK_TIMEOUT_MS: '500', WEBHOOK_ALLOW_PRIVATE: 'true' }),
      clock,
    );
    kit = depositKit(orm, services, clock);
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await orm.close();
  });
  beforeEach(async () => {
    receiver.behaviour = () => 200;
    receiver.received.length = 0;
    // Each test starts with nothing due: an earlier test's retries would meet this one's receiver.
    await orm.em
      .fork()
      .getConnection()
      .execute(
        `update webhook_deliveries
          set status = 'FAILED', next_attempt_at = null, last_error = 'test reset',
              lease_token = null, lease_until = null
        where status = 'PENDING'`,
      );
  });

  const deliverDue = () => services.webhookDeliveries.deliverDue(orm.em.fork(), LIMITS);
  const deliveriesOf = async (merchantId: string) =>
    (await services.webhookLog.listAfter(orm.em.fork(), merchantId, null, null, 100)).deliveries;

  async function merchantWithEndpoint(url = receiver.url) {
    const merchant = await kit.merchant();
    const endpoint = await services.webhookEndpoints.set(orm.em.fork(), merchant, url);
    return { merchant, endpoint };
  }

  it('delivers deposit.created then deposit.settled, signed, with the full Deposit as data', async () => {
    const { merchant, endpoint } = await merchantWithEndpoint();
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(endpoint.secret.slice(6), 'base64')).toHaveLength(32);
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    expect(await deliverDue()).toEqual([{ kind: 'succeeded', statusCode: 200 }]);
    clock.advance(1000); // the log is newest first; same-millisecond rows have no order
    await services.settlement.settle(orm.em.fork(), deposit.id);
    expect(await deliverDue()).toEqual([{ kind: 'succeeded', statusCode: 200 }]);

    expect(receiver.received).toHaveLength(2);
    const [created, settled] = receiver.envelopes();
    for (const r of receiver.received) verifyWebhookAt(endpoint.secret, r);
    const events = await kit.events(deposit.id);
    expect(events.map((e) => e.kind)).toEqual(['deposit.created', 'deposit.settled']);
    expect(Object.keys(created).sort()).toEqual(['created_at', 'data', 'event', 'event_id']);
    expect(created.event).toBe('deposit.created');
    expect(created.data).toMatchObject({ deposit_id: deposit.id, status: 'PENDING_FX' });
    expect(settled.event).toBe('deposit.settled');
    // The full Deposit, exactly as REST shows it now that it is settled.
    expect(settled.data).toEqual(publicDeposit(await kit.reload(deposit.id)));
    expect(receiver.received[1].headers['webhook-id']).toBe(settled.event_id);
    expect(receiver.received[1].headers['content-type']).toBe('application/json');

    const log = await deliveriesOf(merchant);
    expect(log.map((d) => [d.eventKind, d.status, d.attemptCount])).toEqual([
      ['deposit.settled', 'SUCCEEDED', 1],
      ['deposit.created', 'SUCCEEDED', 1],
    ]);
    expect(log[0].attempts[0]).toMatchObject({ number: 1, url: receiver.url, statusCode: 200 });
    expect(log[0].attempts[0].latencyMs).toBeGreaterThanOrEqual(0);
    // Nothing is left due: each event is sent once.
    expect(await deliverDue()).toEqual([]);
  });

  it('writes no delivery for a merchant without an endpoint', async () => {
    const merchant = await kit.merchant();
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    expect(await deliverDue()).toEqual([]);
    expect(await deliveriesOf(merchant)).toEqual([]);
  });

  it('retries a failing receiver on the schedule, 10 times over about 24 h, then fails; polling still shows the change', async () => {
    const { merchant, endpoint } = await merchantWithEndpoint();
    receiver.behaviour = () => 503;
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    const start = clock.now().getTime();
    expect(await deliverDue()).toEqual([
      { kind: 'retry', at: expect.any(Date), statusCode: 503, error: null },
    ]);
    for (let retry = 1; retry <= 10; retry += 1) {
      const [delivery] = await deliveriesOf(merchant);
      const due = delivery.nextAttemptAt!.getTime();
      const previous = retry === 1 ? 0 : plannedRetryOffsetMs(retry - 1);
      const gap = plannedRetryOffsetMs(retry) - previous;
      expect(due - start).toBeGreaterThanOrEqual(previous + gap * (1 - JITTER) - 1);
      expect(due - start).toBeLessThanOrEqual(previous + gap * (1 + JITTER) + 1);
      // Not a moment early.
      clock.set(new Date(due - 1));
      expect(await deliverDue()).toEqual([]);
      clock.set(new Date(due));
      const [outcome] = await deliverDue();
      expect(outcome.kind).toBe(retry < 10 ? 'retry' : 'failed');
    }
    const [failed] = await deliveriesOf(merchant);
    expect(failed).toMatchObject({ status: 'FAILED', attemptCount: 11, nextAttemptAt: null });
    expect(failed.attempts.map((a) => a.statusCode)).toEqual(Array(11).fill(503));
    const times = failed.attempts.map((a) => a.attemptedAt.getTime() - start);
    expect(times[1]).toBeGreaterThanOrEqual(4_500);
    expect(times[1]).toBeLessThanOrEqual(5_500);
    expect(times[10] / 3_600_000).toBeGreaterThan(22);
    expect(times[10] / 3_600_000).toBeLessThan(26);
    // Each attempt was signed at its own time and verifies there.
    expect(receiver.received).toHaveLength(11);
    for (const r of receiver.received) verifyWebhookAt(endpoint.secret, r);
    expect(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size).toBe(1);

    // The merchant's backend can still learn of the change by polling.
    const { api_key } = await issueKey(merchant);
    let gateway: Gateway | undefined;
    try {
      gateway = await startGateway(baseEnv(databaseUrl));
      const since = new Date(start - 60_000).toISOString();
      const page = await request(
        gateway.url,
        'GET',
        `/v1/deposits?updated_since=${encodeURIComponent(since)}`,
        { key: api_key },
      );
      expect(page.status).toBe(200);
      const ids = (page.body as { deposits: Array<{ deposit_id: string }> }).deposits.map(
        (d) => d.deposit_id,
      );
      expect(ids).toContain(deposit.id);
    } finally {
      await gateway?.stop();
    }
  });

  async function issueKey(merchantId: string) {
    const issued = await services.merchants.issueKey(
      orm.em.fork(),
      merchantId,
      environmentOf(services.config),
    );
    return { api_key: issued.apiKey };
  }

  it('succeeds once a receiver that was down is back, recording every attempt', async () => {
    const { merchant } = await merchantWithEndpoint();
    const onramp = await kit.onramp(merchant);
    await receiver.stop();
    await kit.transfer(onramp.accountNumber, '15000');
    const [refused] = await deliverDue();
    expect(refused).toMatchObject({ kind: 'retry', statusCode: null });
    expect((refused as { error: string }).error).toMatch(/ECONNREFUSED/);
    await receiver.start();
    receiver.behaviour = (n) => (n === 1 ? 500 : 200);
    const [delivery] = await deliveriesOf(merchant);
    clock.set(delivery.nextAttemptAt!);
    expect((await deliverDue())[0]).toMatchObject({ kind: 'retry', statusCode: 500 });
    clock.set((await deliveriesOf(merchant))[0].nextAttemptAt!);
    expect(await deliverDue()).toEqual([{ kind: 'succeeded', statusCode: 200 }]);
    const [done] = await deliveriesOf(merchant);
    expect(done.status).toBe('SUCCEEDED');
    expect(done.attempts.map((a) => [a.statusCode, a.error === null])).toEqual([
      [null, false],
      [500, true],
      [200, true],
    ]);
  });

  it('counts an endpoint that does not answer within the timeout as a failed attempt', async () => {
    const { merchant } = await merchantWithEndpoint();
    receiver.behaviour = () => 'hang';
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    const started = Date.now();
    const [outcome] = await deliverDue();
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(outcome).toMatchObject({ kind: 'retry', statusCode: null });
    expect((outcome as { error: string }).error).toBe('no answer within 500 ms');
    const [delivery] = await deliveriesOf(merchant);
    expect(delivery.attempts[0].latencyMs).toBeGreaterThanOrEqual(450);
  });

  it('disables the endpoint on 410: later events owe nothing until the URL is set again', async () => {
    const { merchant } = await merchantWithEndpoint();
    receiver.behaviour = () => 410;
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    expect(await deliverDue()).toEqual([{ kind: 'endpoint_gone', statusCode: 410 }]);
    const endpoint = await services.webhookEndpoints.get(orm.em.fork(), merchant);
    expect(endpoint).toMatchObject({ enabled: false });
    expect(endpoint!.disabledReason).toMatch(/410/);
    expect((await deliveriesOf(merchant))[0]).toMatchObject({ status: 'FAILED', attemptCount: 1 });

    await kit.transfer(onramp.accountNumber, '16000');
    expect(await deliveriesOf(merchant)).toHaveLength(1);
    await expect(
      services.webhookLog.replay(
        orm.em.fork(),
        merchant,
        (await deliveriesOf(merchant))[0].eventId,
      ),
    ).rejects.toMatchObject({ code: 'invalid_parameter' });

    receiver.behaviour = () => 200;
    const again = await services.webhookEndpoints.set(orm.em.fork(), merchant, receiver.url);
    expect(again).toMatchObject({ enabled: true, disabledReason: null });
    await kit.transfer(onramp.accountNumber, '17000');
    expect(await deliverDue()).toEqual([{ kind: 'succeeded', statusCode: 200 }]);
  });

  it('signs with both secrets during a rotation, and with the new one only after it', async () => {
    const { merchant, endpoint: before } = await merchantWithEndpoint();
    const rotated = await services.webhookEndpoints.rotate(orm.em.fork(), merchant);
    expect(rotated.secret).not.toBe(before.secret);
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    await deliverDue();
    const during = receiver.received[0];
    expect(String(during.headers['webhook-signature']).split(' ')).toHaveLength(2);
    verifyWebhookAt(rotated.secret, during);
    verifyWebhookAt(before.secret, during);

    clock.advance(services.config.WEBHOOK_SECRET_ROTATION_SECONDS * 1000 + 1);
    const later = await kit.onramp(merchant);
    await kit.transfer(later.accountNumber, '15000');
    await deliverDue();
    const after = receiver.received[1];
    expect(String(after.headers['webhook-signature']).split(' ')).toHaveLength(1);
    verifyWebhookAt(rotated.secret, after);
    expect(() => verifyWebhookAt(before.secret, after)).toThrow(/No matching signature/);
  });

  it('lets concurrent runners attempt each delivery once, at most perEndpoint each per claim', async () => {
    const { merchant: busy, endpoint: busyEndpoint } = await merchantWithEndpoint();
    const { merchant: quiet } = await merchantWithEndpoint();
    const busyOnramp = await kit.onramp(busy);
    for (let i = 0; i < 6; i += 1) await kit.transfer(busyOnramp.accountNumber, '15000');
    const quietOnramp = await kit.onramp(quiet);
    await kit.transfer(quietOnramp.accountNumber, '15000');

    const claimed = await services.webhookDeliveries.claimDue(orm.em.fork(), {
      limit: 10,
      perEndpoint: 2,
      skipEndpoints: [],
    });
    const count = (m: string) => claimed.filter((c) => c.merchantId === m).length;
    expect([count(busy), count(quiet)]).toEqual([2, 1]);
    // Claimed deliveries are leased: nobody else takes them meanwhile.
    const skipped = await services.webhookDeliveries.claimDue(orm.em.fork(), {
      limit: 10,
      perEndpoint: 10,
      skipEndpoints: [busyEndpoint.id],
    });
    expect(skipped).toEqual([]);
    await Promise.all(claimed.map((c) => services.webhookDeliveries.attempt(orm.em.fork(), c)));

    const outcomes = (await Promise.all([deliverDue(), deliverDue(), deliverDue()])).flat();
    expect(outcomes.filter((o) => o.kind === 'succeeded')).toHaveLength(4);
    const ids = receiver.received.map((r) => r.headers['webhook-id']);
    expect(ids).toHaveLength(7);
    expect(new Set(ids).size).toBe(7);
  });

  it('a hanging endpoint holds at most its share of the dispatcher; other merchants go on', async () => {
    const slow = await new WebhookReceiver().start();
    slow.behaviour = () => 'hang';
    const dispatcher = new WebhookDispatcher(
      orm,
      services.webhookDeliveries,
      { concurrency: 4, perEndpoint: 2 },
      pino({ level: 'silent' }),
    );
    try {
      const { merchant: stuck } = await merchantWithEndpoint(slow.url);
      const stuckOnramp = await kit.onramp(stuck);
      for (let i = 0; i < 6; i += 1) await kit.transfer(stuckOnramp.accountNumber, '15000');
      const { merchant: healthy } = await merchantWithEndpoint();
      const healthyOnramp = await kit.onramp(healthy);
      await kit.transfer(healthyOnramp.accountNumber, '15000');
      await kit.transfer(healthyOnramp.accountNumber, '16000');

      await dispatcher.wake();
      // The healthy merchant's two deliveries arrive while the stuck endpoint still hangs on
      // its two, well before the 500 ms timeout frees anything. (Either side's requests may
      // reach its receiver first: both are waited for.)
      await eventually(
        async () =>
          receiver.received.length === 2 && slow.received.length === 2 ? true : undefined,
        400,
        10,
      );
      expect(slow.received).toHaveLength(2);
    } finally {
      await dispatcher.stop();
      await slow.stop();
    }
    expect(slow.received).toHaveLength(2); // stopped: nothing new was claimed
  });

  it('records nothing for an attempt whose lease another runner took over', async () => {
    const { merchant } = await merchantWithEndpoint();
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    const [stale] = await services.webhookDeliveries.claimDue(orm.em.fork(), LIMITS);
    clock.advance(services.config.WEBHOOK_TIMEOUT_MS + 45_001); // the lease expired
    const [fresh] = await services.webhookDeliveries.claimDue(orm.em.fork(), LIMITS);
    expect(fresh.id).toBe(stale.id);
    expect(await services.webhookDeliveries.attempt(orm.em.fork(), stale)).toEqual({
      kind: 'lease_lost',
    });
    expect(await services.webhookDeliveries.attempt(orm.em.fork(), fresh)).toMatchObject({
      kind: 'succeeded',
    });
    const [delivery] = await deliveriesOf(merchant);
    expect(delivery.attemptCount).toBe(1);
  });

  it('replays an event as a new delivery; another merchant cannot replay it', async () => {
    const { merchant, endpoint } = await merchantWithEndpoint();
    const other = await merchantWithEndpoint();
    const onramp = await kit.onramp(merchant);
    await kit.transfer(onramp.accountNumber, '15000');
    await deliverDue();
    const [original] = await deliveriesOf(merchant);
    const replay = await services.webhookLog.replay(orm.em.fork(), merchant, original.eventId);
    expect(replay).toMatchObject({ replay: true, status: 'PENDING', eventId: original.eventId });
    await deliverDue();
    expect(receiver.received.map((r) => r.headers['webhook-id'])).toEqual([
      original.eventId,
      original.eventId,
    ]);
    expect(receiver.received[1].body).toBe(receiver.received[0].body);
    verifyWebhookAt(endpoint.secret, receiver.received[1]);
    await expect(
      services.webhookLog.replay(orm.em.fork(), other.merchant, original.eventId),
    ).rejects.toMatchObject({ code: 'not_found' });
    await expect(
      services.webhookLog.replay(orm.em.fork(), merchant, 'evt_unknown'),
    ).rejects.toMatchObject({ code: 'not_found' });
    // The operator (no merchant) may replay any event.
    const byOperator = await services.webhookLog.replay(orm.em.fork(), null, original.eventId);
    expect(byOperator.replay).toBe(true);
    await deliverDue();
    expect(receiver.received).toHaveLength(3);
  });
});

describe('webhook endpoints in production', () => {
  let orm: MikroORM;
  let services: Services;
  let merchant: string;
  let receiver: WebhookReceiver;
  const publicNames = new Set(['hooks.example.com']);

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    const clock = new ManualClock(new Date());
    services = createServices(
      loadConfig({ ONRAMP_ENV: 'production', ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }),
      clock,
      {
        resolvesToPublicOnly: async (host) => publicNames.has(host),
      },
    );
    merchant = (await services.merchants.create(orm.em.fork(), 'Live Co')).id;
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await orm.close();
  });

  it.each([
    ['http://hooks.example.com/x', /https in production/],
    ['https://localhost/x', /must resolve to a public address/],
    ['https://127.0.0.1/x', /must resolve to a public address/],
    ['https://10.0.0.8/x', /must resolve to a public address/],
    ['https://[::1]/x', /must resolve to a public address/],
    ['https://internal.corp/x', /must resolve to a public address/],
  ])('refuses %s', async (url, message) => {
    const error = await services.webhookEndpoints
      .set(orm.em.fork(), merchant, url)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(message),
    });
  });

  it('accepts a public https URL', async () => {
    const endpoint = await services.webhookEndpoints.set(
      orm.em.fork(),
      merchant,
      'https://hooks.example.com/x',
    );
    expect(endpoint).toMatchObject({ url: 'https://hooks.example.com/x', enabled: true });
  });

  it('refuses at delivery time a host that now points at a private address', async () => {
    // As if DNS changed after the URL was accepted: the endpoint row points at loopback.
    await orm.em
      .fork()
      .getConnection()
      .execute('update webhook_endpoints set url = ? where merchant_id = ?', [
        receiver.url.replace('127.0.0.1', 'localhost'),
        merchant,
      ]);
    const sender = new HttpWebhookSender({ timeoutMs: 1000, publicOnly: true, userAgent: 't' });
    try {
      const byName = await sender.send({
        url: receiver.url.replace('127.0.0.1', 'localhost'),
        headers: {},
        body: '{}',
      });
      expect(byName).toMatchObject({
        statusCode: null,
        error: 'destination address not allowed',
      });
      const byAddress = await sender.send({ url: receiver.url, headers: {}, body: '{}' });
      expect(byAddress).toMatchObject({
        statusCode: null,
        error: 'destination address not allowed',
      });
      expect(receiver.received).toHaveLength(0);
    } finally {
      sender.close();
    }
  });
});
