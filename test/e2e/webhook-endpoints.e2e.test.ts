import { launchBrowser } from '../support/browser';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

// GraphQL and REST answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const ENDPOINT_KEYS = [
  'created_at',
  'description',
  'disabled_reason',
  'enabled_events',
  'id',
  'secret',
  'status',
  'updated_at',
  'url',
];

/**
 * Several webhook endpoints through the processes: each receives exactly the events it chose,
 * signed with its own secret (verified with `standardwebhooks`); `test` reaches one endpoint;
 * a disabled one receives nothing; the eleventh is refused.
 */
describe('webhook endpoints through the processes', () => {
  let stack: Stack;
  let key: string;
  let otherKey: string;
  const receivers = Array.from({ length: 4 }, () => new WebhookReceiver());

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = (await createMerchant(databaseUrl, 'Many Hooks Co')).api_key;
    otherKey = (await createMerchant(databaseUrl, 'Other Co')).api_key;
    for (const r of receivers) await r.start();
  });
  afterAll(async () => {
    await stack?.stop();
    for (const r of receivers) await r.stop();
  });

  const rest = (method: string, path: string, body?: unknown, k = key) =>
    request<Loose>(stack.url, method, path, { key: k, body });
  const create = (url: string, enabled_events: string[], description?: string) =>
    rest('POST', '/v1/webhook_endpoints', { url, enabled_events, description });
  const kinds = (r: WebhookReceiver) => r.envelopes().map((e) => e.event);

  it('three endpoints receive exactly the events they chose; a disabled one nothing', async () => {
    const all = await create(receivers[0].url, ['*'], 'everything');
    expect(all.status).toBe(201);
    expect(Object.keys(all.body).sort()).toEqual(ENDPOINT_KEYS);
    expect(all.body).toMatchObject({
      id: expect.stringMatching(/^we_[0-9a-f]{32}$/),
      url: receivers[0].url,
      enabled_events: ['*'],
      description: 'everything',
      status: 'ENABLED',
      secret: expect.stringMatching(/^whsec_/),
    });
    const settled = (await create(receivers[1].url, ['deposit.settled'])).body;
    const created = (await create(receivers[2].url, ['deposit.created', 'withdrawal.failed'])).body;
    const disabled = (await create(receivers[3].url, ['*'])).body;
    const patched = await rest('PATCH', `/v1/webhook_endpoints/${disabled.id}`, {
      status: 'DISABLED',
    });
    expect(patched.body).toMatchObject({ id: disabled.id, status: 'DISABLED' });

    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id));
    await sandboxTransfer(stack.url, key, onramp.virtual_account.account_number, '15000');
    await eventually(
      async () =>
        (receivers[0].received.length >= 2 && receivers[1].received.length >= 1) || undefined,
      30_000,
    );
    await eventually(async () => receivers[2].received.length >= 1 || undefined, 10_000);
    expect(kinds(receivers[0])).toEqual(['deposit.created', 'deposit.settled']);
    expect(kinds(receivers[1])).toEqual(['deposit.settled']);
    expect(kinds(receivers[2])).toEqual(['deposit.created']);
    expect(receivers[3].received).toEqual([]);
    // Each verifies with its own endpoint's secret, and only with it.
    for (const r of receivers[0].received) verifyWebhook(all.body.secret, r);
    verifyWebhook(settled.secret, receivers[1].received[0]);
    verifyWebhook(created.secret, receivers[2].received[0]);
    expect(() => verifyWebhook(all.body.secret, receivers[1].received[0])).toThrow();

    // The list shows no secret; one endpoint does; another merchant's id is unknown.
    const list = await rest('GET', '/v1/webhook_endpoints');
    expect(list.body.webhook_endpoints.map((e: Loose) => e.id)).toEqual([
      all.body.id,
      settled.id,
      created.id,
      disabled.id,
    ]);
    expect(list.body.webhook_endpoints.every((e: Loose) => !('secret' in e))).toBe(true);
    expect(list.body.pagination).toMatchObject({ total: 4, page: 1 });
    expect((await rest('GET', `/v1/webhook_endpoints/${settled.id}`)).body.secret).toBe(
      settled.secret,
    );
    const foreign = await rest('GET', `/v1/webhook_endpoints/${settled.id}`, undefined, otherKey);
    expect(foreign.status).toBe(404);
    expect(foreign.body.error.code).toBe('not_found');
    const deliveries = await rest('GET', `/v1/webhook_endpoints/${settled.id}/deliveries`);
    expect(deliveries.body.deliveries).toHaveLength(1);
    expect(deliveries.body.deliveries[0]).toMatchObject({
      endpoint_id: settled.id,
      event: 'deposit.settled',
      attempts: [expect.objectContaining({ number: 1, status_code: 200 })],
    });
  });

  it('test sends a signed test.ping to that endpoint only', async () => {
    const list = (await rest('GET', '/v1/webhook_endpoints')).body.webhook_endpoints as Loose[];
    const target = list[1];
    const before = receivers.map((r) => r.received.length);
    const sent = await rest('POST', `/v1/webhook_endpoints/${target.id}/test`);
    expect(sent.status).toBe(200);
    expect(sent.body).toMatchObject({ endpoint_id: target.id, event: 'test.ping' });
    await eventually(async () => receivers[1].received.length > before[1] || undefined, 10_000);
    const ping = receivers[1].received[receivers[1].received.length - 1];
    const secret = (await rest('GET', `/v1/webhook_endpoints/${target.id}`)).body.secret;
    expect(verifyWebhook(secret, ping)).toMatchObject({
      event: 'test.ping',
      data: { endpoint_id: target.id },
    });
    // The `*` endpoint did not get it (given the time it took the target).
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receivers.map((r) => r.received.length)).toEqual([
      before[0],
      before[1] + 1,
      before[2],
      before[3],
    ]);
    // A disabled endpoint is not tested.
    const disabled = list.find((e) => e.status === 'DISABLED');
    const refused = await rest('POST', `/v1/webhook_endpoints/${disabled.id}/test`);
    expect(refused.status).toBe(400);
  });

  it('refuses the eleventh endpoint; a deleted one frees its place', async () => {
    for (let i = 0; i < 6; i += 1) {
      expect((await create(receivers[3].url, ['deposit.failed'])).status).toBe(201);
    }
    const eleventh = await create(receivers[3].url, ['*']);
    expect(eleventh.status).toBe(422);
    expect(eleventh.body.error.code).toBe('limit_exceeded');
    const unknown = await create(receivers[3].url, ['deposit.nope']);
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.code).toBe('invalid_parameter');

    const gql = await graphql<Loose>(
      stack.url,
      key,
      '{ webhookEndpoints(first: 3) { totalCount edges { node { id status enabledEvents } } pageInfo { hasNextPage } } }',
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.webhookEndpoints).toMatchObject({
      totalCount: 10,
      pageInfo: { hasNextPage: true },
    });
    const last = (await rest('GET', '/v1/webhook_endpoints')).body.webhook_endpoints.at(-1);
    const deleted = await rest('DELETE', `/v1/webhook_endpoints/${last.id}`);
    expect(deleted.body).toEqual({ id: last.id, deleted: true });
    expect((await rest('GET', `/v1/webhook_endpoints/${last.id}`)).status).toBe(404);
    expect((await create(receivers[3].url, ['*'])).status).toBe(201);
  });

  it('the dashboard lists the endpoints, adds one with chosen events and sends a test', async () => {
    const list = (await rest('GET', '/v1/webhook_endpoints')).body.webhook_endpoints as Loose[];
    // Room for one more (the limit is reached above).
    await rest('DELETE', `/v1/webhook_endpoints/${list[list.length - 1].id}`);
    const browser = await launchBrowser();
    try {
      const { page } = browser;
      await page.goto(`${stack.url}/dashboard`);
      await page.getByLabel('Secret API key', { exact: true }).fill(key);
      await page.getByRole('button', { name: 'Sign in', exact: true }).click();
      const rows = page.locator('#webhook-endpoints-table tbody tr');
      await rows.nth(8).waitFor({ timeout: 15_000 });
      expect(await rows.count()).toBe(9);

      // Send a test to the second endpoint (receivers[1]) from its row.
      const before = receivers[1].received.length;
      await page
        .locator(`#webhook-endpoints-table tr[data-endpoint-id="${list[1].id}"]`)
        .getByRole('button', { name: 'Send test' })
        .click();
      await eventually(async () => receivers[1].received.length > before || undefined, 10_000);
      expect(receivers[1].envelopes().at(-1)?.event).toBe('test.ping');

      // Add one for two chosen events: its secret is shown, the list has it.
      const form = page.locator('#webhook-endpoint-form');
      await form.getByLabel('Endpoint URL').fill(receivers[2].url);
      await form.getByLabel('deposit.failed').check();
      await form.getByLabel('withdrawal.failed').check();
      await form.getByRole('button', { name: 'Add endpoint' }).click();
      await rows.nth(9).waitFor({ timeout: 10_000 });
      expect(await page.locator('#webhook-endpoint-secret').textContent()).toMatch(/whsec_/);
      const after = (await rest('GET', '/v1/webhook_endpoints')).body.webhook_endpoints as Loose[];
      expect(after.at(-1)).toMatchObject({
        url: receivers[2].url,
        enabled_events: ['deposit.failed', 'withdrawal.failed'],
      });
      expect(browser.pageErrors).toEqual([]);
    } finally {
      await browser.close();
    }
  });
});
