import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { graphqlRootFields, restOperations } from '../support/every-operation';
import { openSocket, type TestSocket } from '../support/ws-socket';

/** The REST operations and root fields a `deposits:read` key may use. */
/** The operations `deposits:read` opens, and what each answers when called bare. */
const DEPOSIT_OPERATIONS = new Map([
  ['listDeposits', 200],
  ['getDeposit', 200],
  // Without its required period: the scope let it through to the parameter check.
  ['exportDepositsCsv', 400],
]);
const DEPOSIT_FIELDS = new Set(['Query.deposit', 'Query.deposits', 'Query.settledVolume']);
const SUBSCRIPTION = 'subscription { depositUpdated { depositId status } }';

/**
 * Keys the merchant makes: restricted keys refused outside their scopes on every REST route and
 * root field (both lists generated from what the gateway serves), key management for `all`
 * only, and a revoked key's socket closing. Addresses: api-key-addresses.e2e.test.ts.
 */
describe('restricted API keys (e2e)', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let depositId: string;
  const sockets: Array<{ client: { dispose(): void } }> = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const env = { RATE_LIMIT_PER_MINUTE: '100000' };
    stack = await startStack(databaseUrl, { env });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Keys Co'));
    const onramp = await createBalanceOnramp(stack.url, key);
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      onramp.virtual_account.account_number,
      '15000.00',
    );
    depositId = deposit.deposit_id;
  });
  afterAll(async () => {
    for (const socket of sockets) socket.client.dispose();
    await Promise.all([stack?.stop()]);
  });

  async function createKey(body: Record<string, unknown>, withKey = key) {
    const response = await request(stack.url, 'POST', '/v1/api_keys', { key: withKey, body });
    if (response.status !== 201) throw new Error(`${response.status}: ${response.text}`);
    return response.body as { id: string; secret: string; scopes: string[] };
  }

  it('makes rk_ keys for restricted scopes and sk_ keys for all; refuses bad scope lists', async () => {
    const restricted = await request(stack.url, 'POST', '/v1/api_keys', {
      key,
      body: { name: 'Reports', scopes: ['deposits:read'], allowed_ips: ['203.0.113.0/24'] },
    });
    expect(restricted.status).toBe(201);
    expect(restricted.body).toEqual({
      id: expect.stringMatching(/^key_/),
      name: 'Reports',
      scopes: ['deposits:read'],
      allowed_ips: ['203.0.113.0/24'],
      key_prefix: restricted.body.secret.slice(0, 12),
      secret: expect.stringMatching(/^rk_test_[A-Za-z0-9]{30,}$/),
      created_at: expect.any(String),
      revoked_at: null,
    });
    const secret = await createKey({ name: 'Server', scopes: ['all'] });
    expect(secret.secret).toMatch(/^sk_test_/);
    for (const scopes of [['all', 'rates:read'], ['deposits:write'], []]) {
      const refused = await request(stack.url, 'POST', '/v1/api_keys', {
        key,
        body: { name: 'Bad', scopes },
      });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_parameter');
    }
    const list = await request(stack.url, 'GET', '/v1/api_keys?per_page=100', { key });
    expect(list.status).toBe(200);
    expect(list.text).not.toContain(restricted.body.secret);
    expect(list.body.api_keys.map((k: { name: string | null }) => k.name)).toContain(null);
    expect(list.body.api_keys[0]).not.toHaveProperty('secret');
    expect(list.body.pagination).toMatchObject({ page: 1, per_page: 100 });
  });

  it('lets a deposits:read key read deposits and refuses it on every other REST route', async () => {
    const { secret } = await createKey({ name: 'Deposits only', scopes: ['deposits:read'] });
    const list = await request(stack.url, 'GET', '/v1/deposits', { key: secret });
    expect(list.status).toBe(200);
    expect(list.body.deposits.map((d: { deposit_id: string }) => d.deposit_id)).toContain(
      depositId,
    );
    const one = await request(stack.url, 'GET', `/v1/deposits/${depositId}`, { key: secret });
    expect(one.status).toBe(200);

    const operations = await restOperations(stack.url);
    expect(operations.length).toBeGreaterThan(15);
    let checked = 0;
    for (const op of operations) {
      // Public routes (no key needed) have nothing to refuse.
      const anonymous = await request(stack.url, op.method, op.path);
      if (anonymous.status !== 401) continue;
      const response = await request(stack.url, op.method, op.path, { key: secret });
      const label = `${op.method} ${op.template}`;
      if (DEPOSIT_OPERATIONS.has(op.operationId)) {
        expect([label, response.status]).toEqual([
          label,
          op.path.includes('x_unknown') ? 404 : DEPOSIT_OPERATIONS.get(op.operationId),
        ]);
        continue;
      }
      expect([label, response.status, response.body?.error?.code]).toEqual([
        label,
        403,
        'insufficient_scope',
      ]);
      // The merchant's secret key is not refused there.
      const full = await request(stack.url, op.method, op.path, { key });
      expect([label, full.body?.error?.code]).not.toEqual([label, 'insufficient_scope']);
      checked += 1;
    }
    expect(checked).toBeGreaterThan(12);
  });

  it('refuses it INSUFFICIENT_SCOPE on every other root field, the others resolving', async () => {
    const { secret } = await createKey({ name: 'Deposits GraphQL', scopes: ['deposits:read'] });
    const fields = graphqlRootFields();
    expect(fields.map((f) => f.field)).toEqual(
      expect.arrayContaining(['Query.apiKeys', 'Mutation.createApiKey', 'Mutation.withdraw']),
    );
    for (const { field, document } of fields) {
      const response = await graphql(stack.url, secret, document);
      const name = field.split('.')[1];
      const refusals = (response.body.errors ?? []).filter(
        (e) => e.extensions?.code === 'INSUFFICIENT_SCOPE',
      );
      if (DEPOSIT_FIELDS.has(field)) {
        expect([field, refusals]).toEqual([field, []]);
      } else {
        expect([field, refusals.length]).toEqual([field, 1]);
        expect((refusals[0] as { path?: string[] }).path).toEqual([name]);
      }
    }
    const mixed = await graphql<{ deposits: { totalCount: number }; onramp: null }>(
      stack.url,
      secret,
      '{ deposits(first: 5) { totalCount } onramp(id: "onr_x") { onrampId } }',
    );
    expect(mixed.status).toBe(200);
    expect(mixed.body.data?.deposits.totalCount).toBeGreaterThanOrEqual(1);
    expect(mixed.body.data?.onramp).toBeNull();
    expect(mixed.body.errors?.map((e) => e.extensions?.code)).toEqual(['INSUFFICIENT_SCOPE']);
  });

  it('shows a webhook secret only to a key with webhooks:write', async () => {
    const set = await graphql(
      stack.url,
      key,
      'mutation { setWebhookEndpoint(url: "http://127.0.0.1:9/hooks") { url } }',
    );
    expect(set.body.errors).toBeUndefined();
    const query = '{ merchant { id webhookEndpoint { url secret } } }';
    const balance = await createKey({ name: 'Balance', scopes: ['balance:read'] });
    const refused = await graphql(stack.url, balance.secret, query);
    expect(refused.body.data.merchant.id).toBeDefined();
    expect(refused.body.data.merchant.webhookEndpoint).toBeNull();
    // Scopes hold at every depth (v0.3): the endpoint itself is webhooks:write data.
    expect(refused.body.errors).toEqual([
      expect.objectContaining({
        path: ['merchant', 'webhookEndpoint'],
        extensions: { code: 'INSUFFICIENT_SCOPE' },
      }),
    ]);
    const hooks = await createKey({ name: 'Hooks', scopes: ['balance:read', 'webhooks:write'] });
    const allowed = await graphql(stack.url, hooks.secret, query);
    expect(allowed.body.errors).toBeUndefined();
    expect(allowed.body.data.merchant.webhookEndpoint.secret).toMatch(/^whsec_/);
  });

  it('lets only a key with all manage keys', async () => {
    const { secret } = await createKey({
      name: 'Everything but all',
      scopes: ['rates:read', 'onramps:write', 'deposits:read', 'balance:read', 'webhooks:write'],
    });
    for (const [method, path, body] of [
      ['POST', '/v1/api_keys', { name: 'Escalate', scopes: ['all'] }],
      ['GET', '/v1/api_keys', undefined],
      ['DELETE', '/v1/api_keys/key_x', undefined],
    ] as const) {
      const response = await request(stack.url, method, path, { key: secret, body });
      expect(response.status).toBe(403);
      expect(response.body.error.code).toBe('insufficient_scope');
    }
    const gql = await graphql(
      stack.url,
      secret,
      'mutation { createApiKey(input: {name: "Escalate", scopes: ["all"]}) { secret } }',
    );
    expect(gql.body.errors?.[0].extensions?.code).toBe('INSUFFICIENT_SCOPE');

    // Nor can it replay the answer a secret key got for the same Idempotency-Key and body.
    const body = {
      query: 'mutation { createApiKey(input: {name: "Replayed", scopes: ["all"]}) { secret } }',
    };
    const headers = { 'idempotency-key': 'create-key-once' };
    const first = await request(stack.url, 'POST', '/graphql', { key, headers, body });
    expect(first.body.data.createApiKey.secret).toMatch(/^sk_test_/);
    const replay = await request(stack.url, 'POST', '/graphql', { key: secret, headers, body });
    expect(replay.text).not.toContain(first.body.data.createApiKey.secret);
    expect(replay.status).toBe(409);
  });

  it('subscribes depositUpdated with deposits:read only; the refusal ends that subscription alone', async () => {
    const rates = await createKey({ name: 'Rates', scopes: ['rates:read'] });
    const socket: TestSocket = openSocket(stack.url, { authorization: `Bearer ${rates.secret}` });
    sockets.push(socket);
    await socket.connected;
    // graphql-ws answers a subscription whose start failed with one result carrying the
    // error, then completes it; the socket stays open.
    const codesOf = (operation: ReturnType<TestSocket['run']>) =>
      [...operation.errors, ...operation.results.flatMap((r) => r.errors ?? [])].map(
        (e) => e.extensions?.code,
      );
    const refused = socket.run(SUBSCRIPTION);
    await eventually(async () => (refused.completed ? true : undefined));
    expect(codesOf(refused)).toEqual(['INSUFFICIENT_SCOPE']);
    expect(socket.isClosed()).toBe(false);

    const deposits = await createKey({ name: 'Live', scopes: ['deposits:read'] });
    const live = openSocket(stack.url, { authorization: `Bearer ${deposits.secret}` });
    sockets.push(live);
    await live.connected;
    const allowed = live.run(SUBSCRIPTION);
    const again = socket.run(SUBSCRIPTION);
    await eventually(async () => (again.completed ? true : undefined));
    expect(codesOf(again)).toEqual(['INSUFFICIENT_SCOPE']);
    // The allowed one is running: it receives the next change of a deposit.
    const onramp = await createBalanceOnramp(stack.url, key);
    await sandboxTransfer(stack.url, key, onramp.virtual_account.account_number, '12000.00');
    await eventually(async () => (allowed.results.length > 0 ? true : undefined));
    expect(codesOf(allowed)).toEqual([]);
    expect(allowed.completed).toBe(false);
  });

  it("closes a revoked key's websocket with 4401 within 5 s", async () => {
    const created = await createKey({ name: 'Socket', scopes: ['deposits:read'] });
    const socket = openSocket(stack.url, { authorization: `Bearer ${created.secret}` });
    sockets.push(socket);
    await socket.connected;
    socket.run(SUBSCRIPTION);
    const revokedAt = Date.now();
    const revoked = await request(stack.url, 'DELETE', `/v1/api_keys/${created.id}`, { key });
    expect(revoked.status).toBe(200);
    expect(revoked.body.revoked_at).toEqual(expect.any(String));
    const closed = await socket.closed;
    expect(closed.code).toBe(4401);
    expect(closed.at - revokedAt).toBeLessThan(5_000);
    const again = await request(stack.url, 'DELETE', `/v1/api_keys/${created.id}`, { key });
    expect(again.body).toEqual(revoked.body);
    const refused = await request(stack.url, 'GET', '/v1/deposits', { key: created.secret });
    expect(refused.status).toBe(401);
  });
});
