import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { WebhookDispatcher } from '../../src/webhooks/webhook-dispatcher';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { eventually } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

// A deposit created and settled within milliseconds owes two deliveries that fall due
// together. Sent side by side they could reach the merchant settled-first; the dispatcher
// attempts one object's events one after another, in outbox order.
describe('webhook deliveries of one object, in outbox order', () => {
  let orm: MikroORM;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    const clock = new ManualClock(new Date());
    services = createServices(
      loadConfig({ WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_ALLOW_PRIVATE: 'true' }),
      clock,
    );
    kit = depositKit(orm, services, clock);
    receiver = await new WebhookReceiver().start();
  });
  afterAll(async () => {
    await receiver.stop();
    await orm.close();
  });

  it("sends a deposit's next event only once its previous one was answered", async () => {
    const merchant = await kit.merchant();
    await services.webhookEndpoints.set(orm.em.fork(), merchant, receiver.url);
    const other = await kit.merchant();
    await services.webhookEndpoints.set(orm.em.fork(), other, receiver.url);
    const onramp = await kit.onramp(merchant);
    const deposit = await kit.transfer(onramp.accountNumber, '15000');
    await services.settlement.settle(orm.em.fork(), deposit.id);
    const unrelated = await kit.transfer((await kit.onramp(other)).accountNumber, '16000');
    // The first request is answered slowly: a second one of the same deposit sent beside it
    // would arrive before that answer.
    receiver.behaviour = (n) => (n === 1 ? { status: 200, afterMs: 400 } : 200);
    const dispatcher = new WebhookDispatcher(
      orm,
      services.webhookDeliveries,
      { concurrency: 8, perEndpoint: 4 },
      pino({ level: 'silent' }),
    );
    try {
      await dispatcher.wake();
      await eventually(async () => (receiver.received.length === 3 ? true : undefined), 5000, 20);
    } finally {
      await dispatcher.stop();
    }
    const envelopes = receiver.envelopes();
    const mine = envelopes.filter((e) => e.data.deposit_id === deposit.id).map((e) => e.event);
    expect(mine).toEqual(['deposit.created', 'deposit.settled']);
    const at = (kind: string) =>
      receiver.received[
        envelopes.findIndex((e) => e.data.deposit_id === deposit.id && e.event === kind)
      ].receivedAt;
    expect(at('deposit.settled') - at('deposit.created')).toBeGreaterThanOrEqual(350);
    // Another deposit's event does not wait for this one's.
    const theirs = envelopes.findIndex((e) => e.data.deposit_id === unrelated.id);
    expect(receiver.received[theirs].receivedAt - at('deposit.created')).toBeLessThan(350);
  });
});
