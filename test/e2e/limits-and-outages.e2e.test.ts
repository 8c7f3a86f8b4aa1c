import { createTestDatabase } from '../support/db';
import { startOwnPostgres } from '../support/own-postgres';
import {
  baseEnv,
  createMerchant,
  eventually,
  startGateway,
  startStack,
  type Stack,
} from '../support/stack';
import { graphql, request } from '../support/http';
import { wsClient, wsExecute } from '../support/ws';

describe('rate limit shared by two gateways', () => {
  let stack: Stack;
  let key: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { gateways: 2, runners: 1 });
    ({ api_key: key } = await createMerchant(databaseUrl));
  });
  afterAll(() => stack?.stop());

  it('answers the 101st request in a minute with 429, Retry-After and RateLimit headers', async () => {
    // Wait for the first rate with another merchant's key, so this key's window holds only the 101.
    const { api_key: other } = await createMerchant(databaseUrl, 'Other');
    await eventually(async () =>
      (await request(stack.url, 'GET', '/v1/rates?from=NGN', { key: other })).status === 200
        ? true
        : undefined,
    );
    // Align to the start of a fresh minute window so all 101 requests share it.
    const msIntoMinute = Date.now() % 60_000;
    if (msIntoMinute > 45_000) await new Promise((r) => setTimeout(r, 60_000 - msIntoMinute + 50));
    const [a, b] = stack.gateways.map((g) => g.url);
    const statuses: number[] = [];
    let last;
    for (let i = 1; i <= 100; i += 1) {
      const response = await request(i % 2 === 0 ? a : b, 'GET', '/v1/rates?from=NGN', { key });
      statuses.push(response.status);
      last = response;
    }
    expect(new Set(statuses)).toEqual(new Set([200]));
    expect(last!.headers.get('ratelimit-limit')).toBe('100');
    expect(last!.headers.get('ratelimit-remaining')).toBe('0');
    const over = await request(a, 'GET', '/v1/rates?from=NGN', { key });
    expect(over.status).toBe(429);
    expect(over.body).toEqual({ error: { code: 'rate_limited', message: expect.any(String) } });
    // The wait in words is Retry-After's seconds.
    const words =
      /^Rate limit of 100 requests per minute exceeded; retry in (?:(\d+) seconds?|1 minute)$/.exec(
        over.body.error.message,
      );
    expect(words).not.toBeNull();
    expect(Number(words![1] ?? 60)).toBe(Number(over.headers.get('retry-after')));
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(Number(over.headers.get('retry-after'))).toBeLessThanOrEqual(60);
    expect(over.headers.get('ratelimit-limit')).toBe('100');
    expect(over.headers.get('ratelimit-remaining')).toBe('0');
    expect(Number(over.headers.get('ratelimit-reset'))).toBeGreaterThan(0);
    const gql = await graphql(b, key, '{ merchant { id } }');
    expect(gql.status).toBe(429);
    expect(gql.body.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
  });
});

describe('rate source outage', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { RATE_INTERVAL_SECONDS: '1', RATE_TTL_SECONDS: '4', RATE_LIMIT_PER_MINUTE: '100000' },
    });
    ({ api_key: key } = await createMerchant(databaseUrl));
  });
  afterAll(() => stack?.stop());

  it('answers 503 rate_unavailable once the last rate expires, and recovers', async () => {
    const first = await eventually(async () => {
      const r = await request(stack.url, 'GET', '/v1/rates?from=NGN', { key });
      return r.status === 200 ? r.body : undefined;
    });
    // New rates keep coming while the source is up.
    await eventually(async () => {
      const r = await request(stack.url, 'GET', '/v1/rates?from=NGN', { key });
      return r.body.rate_id !== first.rate_id ? true : undefined;
    });
    const set = await graphql(
      stack.url,
      key,
      'mutation { setSandboxScenario(input: { rateSourceDown: true }) { rateSourceDown } }',
    );
    expect(set.body.data.setSandboxScenario).toEqual({ rateSourceDown: true });

    const lastGood = await request(stack.url, 'GET', '/v1/rates?from=NGN', { key });
    const unavailable = await eventually(async () => {
      const r = await request(stack.url, 'GET', '/v1/rates?from=NGN', { key });
      return r.status === 503 ? r : undefined;
    }, 15_000);
    expect(unavailable.body).toEqual({
      error: { code: 'rate_unavailable', message: expect.any(String) },
    });
    // Not before the last published rate expired.
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(lastGood.body.expires_at) - 50);
    const gql = await graphql(stack.url, key, '{ rate(from: "NGN") { rateId } }');
    expect(gql.body.errors?.[0].extensions?.code).toBe('RATE_UNAVAILABLE');

    await graphql(
      stack.url,
      key,
      'mutation { setSandboxScenario(input: { rateSourceDown: false }) { rateSourceDown } }',
    );
    const back = await eventually(async () => {
      const r = await request(stack.url, 'GET', '/v1/rates?from=NGN', { key });
      return r.status === 200 ? r.body : undefined;
    });
    expect(back.rate_id).not.toBe(lastGood.body.rate_id);
  });

  it('authenticates graphql-ws connections from connectionParams', async () => {
    await eventually(async () =>
      (await request(stack.url, 'GET', '/v1/rates?from=NGN', { key })).status === 200
        ? true
        : undefined,
    );
    // A good key connects: the socket is acknowledged and an operation reaches the server (a
    // query is refused there, since the socket carries subscriptions only, not for want of a key).
    const good = wsClient(stack.url, `Bearer ${key}`);
    const refused = await wsExecute(good, '{ merchant { id } }').then(
      () => undefined,
      (errors: unknown) => errors,
    );
    expect(refused).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/subscriptions only/) }),
    ]);
    await good.dispose();

    for (const authorization of [
      undefined,
      'Bearer sk_test_nope',
      `Bearer sk_live_${'x'.repeat(40)}`,
    ]) {
      const bad = wsClient(stack.url, authorization);
      const closed = await wsExecute(bad, '{ merchant { id } }').then(
        () => undefined,
        (event: { code?: number; reason?: string }) => event,
      );
      expect(closed?.code).toBe(4401);
      await bad.dispose();
    }
  });
});

describe('database outage', () => {
  it('answers /health with 503 and API calls with service_unavailable, never a 500', async () => {
    const postgres = await startOwnPostgres('outage');
    try {
      const { api_key: key } = await createMerchant(postgres.url);
      const gateway = await startGateway(baseEnv(postgres.url));
      try {
        expect((await request(gateway.url, 'GET', '/health')).status).toBe(200);
        await postgres.stop();
        const health = await request(gateway.url, 'GET', '/health');
        expect(health.status).toBe(503);
        expect(health.body).toMatchObject({
          status: 'unavailable',
          database: 'down',
          error: { code: 'service_unavailable' },
        });
        const rates = await request(gateway.url, 'GET', '/v1/rates?from=NGN', { key });
        expect(rates.status).toBe(503);
        expect(rates.body.error.code).toBe('service_unavailable');
      } finally {
        await gateway.stop();
      }
    } finally {
      await postgres.stop();
    }
  });
});
