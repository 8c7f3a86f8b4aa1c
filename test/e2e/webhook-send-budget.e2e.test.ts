import { createTestDatabase } from '../support/db';
import { graphql, request, type HttpResponse } from '../support/http';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

// GraphQL and REST answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const BUDGET = 4;
const HOUR_MS = 60 * 60 * 1000;

const TEST_MUTATION = `mutation($id: ID!) { testWebhookEndpoint(id: $id) { id eventId } }`;
const REPLAY_MUTATION = `mutation($e: ID!) { replayWebhookEvent(eventId: $e) { id eventId replay } }`;

/**
 * Finding 10 of issue 32 (its last part): `POST /v1/webhook_endpoints/{id}/test` and replays
 * (GraphQL `testWebhookEndpoint`, `replayWebhookEvent`) make the job runner send to a URL the
 * merchant chose, so a leaked key could make it send without end. They share one budget per
 * merchant and clock hour (`WEBHOOK_TEST_AND_REPLAY_PER_HOUR`), counted across gateways;
 * past it: 429 `rate_limited` with `Retry-After` (GraphQL: HTTP 429, `RATE_LIMITED`).
 */
describe('the per-merchant budget of webhook tests and replays', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let otherKey: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      gateways: 2,
      env: { RATE_LIMIT_PER_MINUTE: '100000', WEBHOOK_TEST_AND_REPLAY_PER_HOUR: String(BUDGET) },
    });
    key = (await createMerchant(databaseUrl, 'Budget Co')).api_key;
    otherKey = (await createMerchant(databaseUrl, 'Other Co')).api_key;
    await receiver.start();
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  const endpointOf = async (k: string) => {
    const created = await request<Loose>(stack.url, 'POST', '/v1/webhook_endpoints', {
      key: k,
      body: { url: receiver.url, enabled_events: ['*'] },
    });
    expect(created.status).toBe(201);
    return created.body.id as string;
  };

  function expectRefused(answer: HttpResponse<Loose>, graphQL: boolean) {
    expect(answer.status).toBe(429);
    if (graphQL) {
      expect(answer.body.errors).toHaveLength(1);
      expect(answer.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    } else {
      expect(answer.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    }
    const retryAfter = Number(answer.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
  }

  it('holds test pings and replays together, over both gateways, REST and GraphQL', async () => {
    // All of it within one clock hour: close to its end, wait for the next (up to 90 s, so
    // this test's timeout is 180 s, not the default 60 s that CI hit at 19:58 UTC).
    const left = HOUR_MS - (Date.now() % HOUR_MS);
    if (left < 90_000) await new Promise((r) => setTimeout(r, left + 100));
    const [a, b] = stack.gateways.map((g) => g.url);
    const endpoint = await endpointOf(key);
    const testPath = `/v1/webhook_endpoints/${endpoint}/test`;

    const first = await request<Loose>(a, 'POST', testPath, { key });
    expect(first.status).toBe(200);
    const viaGraphQL = await graphql<Loose>(b, key, TEST_MUTATION, { id: endpoint });
    expect(viaGraphQL.body.errors).toBeUndefined();
    const replayed = await graphql<Loose>(a, key, REPLAY_MUTATION, { e: first.body.event_id });
    expect(replayed.body.errors).toBeUndefined();
    expect(replayed.body.data.replayWebhookEvent).toMatchObject({ replay: true });
    expect((await request(b, 'POST', testPath, { key })).status).toBe(200);

    // The budget is spent, whichever gateway, transport or kind of send asks next.
    expectRefused(await request<Loose>(a, 'POST', testPath, { key }), false);
    expectRefused(await graphql<Loose>(b, key, TEST_MUTATION, { id: endpoint }), true);
    expectRefused(await graphql<Loose>(a, key, REPLAY_MUTATION, { e: first.body.event_id }), true);

    // Nothing was sent for the refused ones: four deliveries, four requests received.
    const deliveries = await request<Loose>(
      a,
      'GET',
      `${testPath.replace('/test', '')}/deliveries`,
      {
        key,
      },
    );
    expect(deliveries.body.deliveries).toHaveLength(BUDGET);
    await eventually(async () => receiver.received.length >= BUDGET || undefined, 20_000);
    await new Promise((r) => setTimeout(r, 500));
    expect(receiver.received).toHaveLength(BUDGET);

    // Another merchant has its own budget; the operator's replay is not counted.
    const otherEndpoint = await endpointOf(otherKey);
    const other = await request(b, 'POST', `/v1/webhook_endpoints/${otherEndpoint}/test`, {
      key: otherKey,
    });
    expect(other.status).toBe(200);
    await onrampCli(databaseUrl, ['webhooks', 'replay', first.body.event_id]);
  }, 180_000);
});
