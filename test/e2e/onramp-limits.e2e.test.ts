import { Client } from 'pg';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { graphql, request } from '../support/http';
import { balanceOnramp, freshRate } from '../support/onramps';

describe('daily quota and idempotency under concurrency', () => {
  let stack: Stack;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      gateways: 2,
      env: { RATE_LIMIT_PER_MINUTE: '1000000', DB_POOL_MAX: '10' },
    });
  });
  afterAll(() => stack?.stop());

  it('1,010 concurrent creations yield exactly 1,000 onramps and a frozen merchant', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Busy Shop');
    const rate = await freshRate(stack.url, key);
    const responses = await Promise.all(
      Array.from({ length: 1010 }, (_, i) =>
        request(stack.gateways[i % 2].url, 'POST', '/v1/onramp', {
          key,
          body: balanceOnramp(rate.rate_id),
        }),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(1000);
    const refused = responses.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(10);
    for (const r of refused)
      expect(r.body).toEqual({ error: { code: 'merchant_frozen', message: expect.any(String) } });
    const numbers = new Set(
      responses.filter((r) => r.status === 201).map((r) => r.body.virtual_account.account_number),
    );
    expect(numbers.size).toBe(1000);

    const list = await request(stack.url, 'GET', '/v1/onramps?per_page=1', { key });
    expect(list.body.pagination.total).toBe(1000);
    const merchant = await graphql(stack.url, key, '{ merchant { status } }');
    expect(merchant.body.data.merchant.status).toBe('FROZEN');
    const after = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    expect(after.status).toBe(403);
    expect(after.body.error.code).toBe('merchant_frozen');
    const gql = await graphql(
      stack.url,
      key,
      `mutation { createOnramp(input: { type: EPHEMERAL, user: { email: "a@example.com" }, rateId: "${rate.rate_id}", settlement: { mode: MERCHANT_BALANCE } }) { onrampId } }`,
    );
    expect(gql.body.errors?.[0].extensions?.code).toBe('MERCHANT_FROZEN');
    // Reads still work for a frozen merchant.
    expect((await request(stack.url, 'GET', '/v1/rates?from=NGN', { key })).status).toBe(200);
    // A bound, not a speed assertion: 1,010 requests take about 30 s alone, more when loaded.
  }, 180_000);

  it('the same Idempotency-Key sent 20 times concurrently creates one onramp', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Careful Shop');
    const rate = await freshRate(stack.url, key);
    const body = balanceOnramp(rate.rate_id);
    const headers = { 'idempotency-key': 'order-7781' };
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        request(stack.gateways[i % 2].url, 'POST', '/v1/onramp', { key, body, headers }),
      ),
    );
    const created = responses.filter((r) => r.status === 201);
    const conflicts = responses.filter((r) => r.status === 409);
    expect(created.length + conflicts.length).toBe(20);
    expect(new Set(created.map((r) => r.body.onramp_id)).size).toBe(1);
    for (const r of conflicts) expect(r.body.error.code).toBe('idempotency_conflict');

    const replay = await eventually(async () => {
      const r = await request(stack.url, 'POST', '/v1/onramp', { key, body, headers });
      return r.status === 201 ? r : undefined;
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    const onrampId = replay.body.onramp_id;
    if (created.length > 0) expect(onrampId).toBe(created[0].body.onramp_id);
    const list = await request(stack.url, 'GET', '/v1/onramps', { key });
    expect(list.body.pagination.total).toBe(1);

    const different = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: { ...body, type: 'THROWAWAY' },
      headers,
    });
    expect(different.status).toBe(409);
    expect(different.body.error.code).toBe('idempotency_conflict');
    const tooLong = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body,
      headers: { 'idempotency-key': 'k'.repeat(256) },
    });
    expect(tooLong.status).toBe(400);
    expect(tooLong.body.error.code).toBe('invalid_parameter');
  });
});

describe('rate expiry, rate outage and onramp TTL', () => {
  let stack: Stack;
  let key: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_INTERVAL_SECONDS: '1',
        RATE_TTL_SECONDS: '3',
        ONRAMP_TTL_SECONDS: '2',
        EXPIRY_SWEEP_SECONDS: '1',
        RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    ({ api_key: key } = await createMerchant(databaseUrl));
  });
  afterAll(() => stack?.stop());

  it('answers rate_expired for an expired rate_id while fresher rates exist', async () => {
    const rate = await freshRate(stack.url, key);
    await eventually(
      async () => (Date.now() > Date.parse(rate.expires_at) + 100 ? true : undefined),
      10_000,
    );
    const response = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    expect(response.status).toBe(422);
    expect(response.body.error.code).toBe('rate_expired');
  });

  it('marks a short-lived onramp EXPIRED after its TTL and frees its account', async () => {
    const rate = await freshRate(stack.url, key);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    expect(created.status).toBe(201);
    const id = created.body.onramp_id;
    expect(Date.parse(created.body.expires_at) - Date.parse(created.body.created_at)).toBe(2000);
    const expired = await eventually(async () => {
      const r = await request(stack.url, 'GET', `/v1/onramp/${id}`, { key });
      return r.body.status === 'EXPIRED' ? r.body : undefined;
    }, 10_000);
    expect(Date.now()).toBeGreaterThanOrEqual(Date.parse(created.body.expires_at));
    expect(expired.status).toBe('EXPIRED');
    // The sweep persists it and starts the account's 365-day cooldown.
    const released = await eventually(async () => {
      const rows = await adminQueryOn(databaseUrl, 'select status from onramps where id = $1', [
        id,
      ]);
      return rows[0]?.status === 'EXPIRED' ? rows : undefined;
    }, 10_000);
    expect(released).toHaveLength(1);
    const gql = await graphql(
      stack.url,
      created.body.client_secret,
      `{ onramp(id: "${id}") { status } }`,
    );
    expect(gql.body.data.onramp.status).toBe('EXPIRED');
  });

  it('answers rate_unavailable when no valid rate exists', async () => {
    const rate = await freshRate(stack.url, key);
    await graphql(
      stack.url,
      key,
      'mutation { setSandboxScenario(input: { rateSourceDown: true }) { rateSourceDown } }',
    );
    try {
      await eventually(
        async () =>
          (await request(stack.url, 'GET', '/v1/rates?from=NGN', { key })).status === 503
            ? true
            : undefined,
        15_000,
      );
      const expiredRate = await request(stack.url, 'POST', '/v1/onramp', {
        key,
        body: balanceOnramp(rate.rate_id),
      });
      expect(expiredRate.status).toBe(503);
      expect(expiredRate.body.error.code).toBe('rate_unavailable');
      const permanent = await request(stack.url, 'POST', '/v1/onramp', {
        key,
        body: {
          type: 'PERMANENT',
          user: { email: 'p@example.com' },
          settlement: { mode: 'MERCHANT_BALANCE' },
        },
      });
      expect(permanent.status).toBe(503);
      expect(permanent.body.error.code).toBe('rate_unavailable');
    } finally {
      await graphql(
        stack.url,
        key,
        'mutation { setSandboxScenario(input: { rateSourceDown: false }) { rateSourceDown } }',
      );
    }
  });
});

/** Reads the test database directly (only to confirm what the sweep persisted). */
async function adminQueryOn(
  databaseUrl: string,
  sql: string,
  params: unknown[],
): Promise<Array<Record<string, unknown>>> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows;
  } finally {
    await client.end();
  }
}
