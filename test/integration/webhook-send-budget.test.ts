import type { MikroORM } from '@mikro-orm/postgresql';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { WebhookSendsLimited } from '../../src/webhooks';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';

const HOUR_MS = 60 * 60 * 1000;

/** The budget's window follows the service clock: one clock hour, then a fresh budget. */
describe('webhook test and replay budget', () => {
  let orm: MikroORM;
  let clock: ManualClock;
  let services: Services;
  let kit: ReturnType<typeof depositKit>;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    // One minute into an hour.
    clock = new ManualClock(new Date(Math.floor(Date.now() / HOUR_MS) * HOUR_MS + 60_000));
    services = createServices(
      loadConfig({ WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_TEST_AND_REPLAY_PER_HOUR: '2' }),
      clock,
    );
    kit = depositKit(orm, services, clock);
  });
  afterAll(() => orm.close());

  it('refuses the third send of the hour with the time left, spares the operator, and renews', async () => {
    const merchant = await kit.merchant();
    const endpoint = await services.webhookEndpoints.set(
      orm.em.fork(),
      merchant,
      'http://127.0.0.1:9/hooks',
    );
    const log = services.webhookLog;
    const ping = await log.sendTest(orm.em.fork(), merchant, endpoint.id);
    await log.replay(orm.em.fork(), merchant, ping.eventId);
    const refused = await log.sendTest(orm.em.fork(), merchant, endpoint.id).catch((e) => e);
    expect(refused).toBeInstanceOf(WebhookSendsLimited);
    expect(refused).toMatchObject({ code: 'rate_limited', limit: 2, retryAfterSeconds: 3540 });
    await expect(log.replay(orm.em.fork(), merchant, ping.eventId)).rejects.toBeInstanceOf(
      WebhookSendsLimited,
    );
    // The operator (no merchant) replays whatever the merchant's budget says.
    expect((await log.replay(orm.em.fork(), null, ping.eventId)).replay).toBe(true);
    // Another merchant has its own budget.
    const other = await kit.merchant();
    const otherEndpoint = await services.webhookEndpoints.set(
      orm.em.fork(),
      other,
      'http://127.0.0.1:9/other',
    );
    await log.sendTest(orm.em.fork(), other, otherEndpoint.id);

    clock.advance(HOUR_MS - 60_000);
    await log.sendTest(orm.em.fork(), merchant, endpoint.id);
    const { total } = await log.listPage(orm.em.fork(), merchant, endpoint.id, 0, 10);
    expect(total).toBe(4);
  });
});
