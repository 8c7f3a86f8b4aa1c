import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { graphql, request } from '../support/http';

/**
 * Both processes, real HTTP: rates appear by themselves, keys are checked, errors have the
 * API's shape, and the rate limit holds.
 */
describe('foundation end to end', () => {
  let databaseUrl: string;
  let stack: Stack;
  let key: string;
  let merchantId: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_INTERVAL_SECONDS: '600',
        RATE_TTL_SECONDS: '1800',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl));
  });
  afterAll(() => stack?.stop());

  it('publishes a rate without any manual step', async () => {
    const rate = await eventually(async () => {
      const response = await request(stack.url, 'GET', '/v1/rates?from=NGN', { key });
      return response.status === 200 ? response.body : undefined;
    });
    expect(rate.to).toBe('USDC');
  });

  it('answers GET /v1/rates with the fields and fee math of API.md', async () => {
    for (const to of ['USDC', 'USDT', 'USD']) {
      const response = await request(stack.url, 'GET', `/v1/rates?from=NGN&to=${to}`, { key });
      expect(response.status).toBe(200);
      const rate = response.body;
      expect(Object.keys(rate).sort()).toEqual([
        'created_at',
        'expires_at',
        'fee_bps',
        'from',
        'inverse_rate',
        'market_rate',
        'min_deposit_ngn',
        'rate',
        'rate_id',
        'to',
      ]);
      expect(rate).toMatchObject({ from: 'NGN', to, fee_bps: 50, min_deposit_ngn: 1500 });
      expect(rate.rate_id).toMatch(/^rate_/);
      // inverse = market_inverse x (1 - fee), rounded down to 12 places; rate = 1/inverse rounded up.
      const expectedInverse = Math.floor((1 / rate.market_rate) * (1 - 50 / 10000) * 1e12) / 1e12;
      expect(Math.abs(rate.inverse_rate - expectedInverse)).toBeLessThanOrEqual(1e-12);
      expect(rate.inverse_rate).toBeLessThan(1 / rate.market_rate);
      expect(rate.rate).toBeGreaterThan(rate.market_rate);
      expect(Math.abs(rate.rate * rate.inverse_rate - 1)).toBeLessThan(1e-6);
      const ttl = Date.parse(rate.expires_at) - Date.parse(rate.created_at);
      expect(ttl).toBe(1800 * 1000);
      expect(new Date(rate.created_at).toISOString()).toBe(rate.created_at);
    }
  });

  it('serves the same quote through GraphQL', async () => {
    const rest = await request(stack.url, 'GET', '/v1/rates?from=NGN&to=USDT', { key });
    const response = await graphql(
      stack.url,
      key,
      '{ rate(from: "NGN", to: "USDT") { rateId rate inverseRate feeBps minDepositNgn expiresAt } }',
    );
    expect(response.status).toBe(200);
    expect(response.body.data.rate).toEqual({
      rateId: rest.body.rate_id,
      rate: rest.body.rate,
      inverseRate: rest.body.inverse_rate,
      feeBps: 50,
      minDepositNgn: 1500,
      expiresAt: rest.body.expires_at,
    });
  });

  it('answers missing and invalid parameters in both transports', async () => {
    const missing = await request(stack.url, 'GET', '/v1/rates', { key });
    expect(missing.status).toBe(400);
    expect(missing.body).toEqual({
      error: { code: 'missing_parameter', message: expect.stringContaining('from') },
    });
    const badFrom = await request(stack.url, 'GET', '/v1/rates?from=USD', { key });
    expect(badFrom.status).toBe(400);
    expect(badFrom.body.error.code).toBe('invalid_parameter');
    const badTo = await request(stack.url, 'GET', '/v1/rates?from=NGN&to=BTC', { key });
    expect(badTo.body.error.code).toBe('invalid_parameter');
    const gqlBad = await graphql(stack.url, key, '{ rate(from: "NGN", to: "BTC") { rateId } }');
    expect(gqlBad.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
    const gqlMissing = await graphql(stack.url, key, '{ rate { rateId } }');
    expect(gqlMissing.status).toBe(400);
    expect(gqlMissing.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
  });

  it('refuses missing, malformed, unknown, revoked and wrong-environment keys with 401', async () => {
    const revoked = (await onrampCli(databaseUrl, [
      'keys',
      'issue',
      '--merchant',
      merchantId,
      '--json',
    ])) as {
      key_id: string;
      api_key: string;
    };
    expect(
      (await request(stack.url, 'GET', '/v1/rates?from=NGN', { key: revoked.api_key })).status,
    ).toBe(200);
    await onrampCli(databaseUrl, ['keys', 'revoke', revoked.key_id]);
    const live = (await onrampCli(databaseUrl, [
      'keys',
      'issue',
      '--merchant',
      merchantId,
      '--env',
      'production',
      '--json',
    ])) as {
      api_key: string;
    };
    expect(live.api_key).toMatch(/^sk_live_/);

    const cases: Array<[string, Record<string, string>]> = [
      ['missing', {}],
      ['malformed', { authorization: 'Token abc' }],
      ['malformed key', { authorization: 'Bearer sk_test_' }],
      ['unknown', { authorization: `Bearer sk_test_${'Z'.repeat(43)}` }],
      ['revoked', { authorization: `Bearer ${revoked.api_key}` }],
      ['wrong environment', { authorization: `Bearer ${live.api_key}` }],
    ];
    for (const [label, headers] of cases) {
      const rest = await request(stack.url, 'GET', '/v1/rates?from=NGN', { headers });
      expect({ label, status: rest.status, code: rest.body.error?.code }).toEqual({
        label,
        status: 401,
        code: 'unauthorized',
      });
      expect(rest.headers.get('x-request-id')).toMatch(/^req_/);
      const gql = await request(stack.url, 'POST', '/graphql', {
        headers,
        body: { query: '{ merchant { id } }' },
      });
      expect({ label, status: gql.status, code: gql.body.errors?.[0]?.extensions?.code }).toEqual({
        label,
        status: 401,
        code: 'UNAUTHORIZED',
      });
    }
  });

  it('keeps the error shape for hostile bodies, unknown routes and oversized requests', async () => {
    const notFound = await request(stack.url, 'GET', '/v1/nope', { key });
    expect(notFound.status).toBe(404);
    expect(notFound.body.error.code).toBe('not_found');
    const malformed = await request(stack.url, 'POST', '/graphql', { key, rawBody: '{"query": ' });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors?.[0].extensions?.code ?? malformed.body.error?.code).toMatch(
      /invalid_parameter/i,
    );
    const huge = await request(stack.url, 'POST', '/graphql', {
      key,
      rawBody: JSON.stringify({ query: `{ merchant { id } } #${'x'.repeat(70 * 1024)}` }),
    });
    expect(huge.status).toBe(413);
    expect(JSON.stringify(huge.body)).toMatch(/payload_too_large|PAYLOAD_TOO_LARGE/);
    const deep = await graphql(
      stack.url,
      key,
      `{ ${'merchant { id '.repeat(1)}${'}'.repeat(1)} a1: merchant { id } a2: merchant { id } a3: merchant { id } a4: merchant { id } a5: merchant { id } a6: merchant { id } a7: merchant { id } a8: merchant { id } a9: merchant { id } a10: merchant { id } a11: merchant { id } a12: merchant { id } a13: merchant { id } a14: merchant { id } a15: merchant { id } a16: merchant { id } a17: merchant { id } a18: merchant { id } a19: merchant { id } a20: merchant { id } a21: merchant { id } }`,
    );
    expect(deep.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
    expect(deep.body.errors?.[0].message).toMatch(/aliases/);
    const requestId = await request(stack.url, 'GET', '/health', {
      headers: { 'x-request-id': 'trace-123' },
    });
    expect(requestId.headers.get('x-request-id')).toBe('trace-123');
  });

  it('reports health and serves the OpenAPI document generated from the routes', async () => {
    const health = await request(stack.url, 'GET', '/health');
    expect(health.status).toBe(200);
    expect(health.body).toMatchObject({ status: 'ok', database: 'ok', environment: 'sandbox' });
    const openapi = await request(stack.url, 'GET', '/v1/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    const rates = openapi.body.paths['/v1/rates'].get;
    expect(rates.responses['200'].content['application/json'].schema).toBeDefined();
    expect(Object.keys(rates.responses)).toEqual(
      expect.arrayContaining(['200', '400', '401', '429', '503']),
    );
  });
});
