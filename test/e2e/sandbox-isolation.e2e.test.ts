import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp } from '../support/onramps';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';

const PERMANENT = {
  type: 'PERMANENT',
  user: { email: 'p@example.com' },
  settlement: { mode: 'MERCHANT_BALANCE' },
};

/**
 * One sandbox deployment, two merchants: what one merchant does to its sandbox must not reach
 * the other, and webhook URLs cannot aim the service at its own network.
 */
describe('sandbox isolation (gateway and job runner, WEBHOOK_ALLOW_PRIVATE unset)', () => {
  let databaseUrl: string;
  let stack: Stack;
  let keyA: string;
  let keyB: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_INTERVAL_SECONDS: '1',
        RATE_TTL_SECONDS: '4',
        RATE_LIMIT_PER_MINUTE: '100000',
        WEBHOOK_ALLOW_PRIVATE: 'false',
      },
    });
    ({ api_key: keyA } = await createMerchant(databaseUrl, 'Scenario Co'));
    ({ api_key: keyB } = await createMerchant(databaseUrl, 'Bystander Co'));
  });
  afterAll(() => stack?.stop());

  const rates = (key: string, to = 'USD') =>
    request(stack.url, 'GET', `/v1/rates?from=NGN&to=${to}`, { key });
  const fresh = (key: string, to = 'USD') =>
    eventually(async () => {
      const r = await rates(key, to);
      return r.status === 200 ? r.body : undefined;
    });
  const setScenario = (key: string, down: boolean) =>
    graphql(
      stack.url,
      key,
      `mutation { setSandboxScenario(input: { rateSourceDown: ${down} }) { rateSourceDown } }`,
    );

  it("a merchant's rateSourceDown takes rates from that merchant only; the job keeps publishing", async () => {
    await fresh(keyA);
    const before = await fresh(keyB);
    expect((await setScenario(keyA, true)).body.data).toEqual({
      setSandboxScenario: { rateSourceDown: true },
    });
    const unavailable = await eventually(async () => {
      const r = await rates(keyA);
      return r.status === 503 ? r : undefined;
    });
    expect(unavailable.body).toEqual({
      error: { code: 'rate_unavailable', message: expect.any(String) },
    });
    // The other merchant still gets new rates, after the first merchant's ran out.
    const later = await eventually(async () => {
      const r = await rates(keyB);
      return r.status === 200 && r.body.rate_id !== before.rate_id ? r.body : undefined;
    });
    expect(Date.parse(later.created_at)).toBeGreaterThan(Date.parse(before.created_at));
    const gql = await graphql(stack.url, keyA, '{ rate(from: "NGN") { rateId } }');
    expect(gql.body.errors?.[0].extensions?.code).toBe('RATE_UNAVAILABLE');
    expect(
      (await graphql(stack.url, keyB, '{ rate(from: "NGN") { rateId } }')).body.data?.rate,
    ).toEqual({ rateId: expect.stringMatching(/^rate_/) });

    const permanentA = await request(stack.url, 'POST', '/v1/onramp', {
      key: keyA,
      body: PERMANENT,
    });
    expect(permanentA.status).toBe(503);
    expect(permanentA.body.error.code).toBe('rate_unavailable');
    const usdcB = await fresh(keyB, 'USDC');
    // B's current rate id is no use to A: for A, it was published after its source went down.
    const borrowed = await request(stack.url, 'POST', '/v1/onramp', {
      key: keyA,
      body: balanceOnramp(usdcB.rate_id),
    });
    expect(borrowed.status).toBe(503);
    expect(borrowed.body.error.code).toBe('rate_unavailable');
    const permanentB = await request(stack.url, 'POST', '/v1/onramp', {
      key: keyB,
      body: PERMANENT,
    });
    expect(permanentB.status).toBe(201);

    await setScenario(keyA, false);
    expect((await rates(keyA)).status).toBe(200);
  });

  it("the deployment-wide switch is the operator's, audited", async () => {
    await fresh(keyB);
    expect(await onrampCli(databaseUrl, ['sandbox', 'rate-source-down', 'on', '--json'])).toEqual({
      rate_source_down: true,
    });
    try {
      for (const key of [keyA, keyB]) {
        const r = await eventually(async () => {
          const answer = await rates(key);
          return answer.status === 503 ? answer : undefined;
        });
        expect(r.body.error.code).toBe('rate_unavailable');
      }
    } finally {
      await onrampCli(databaseUrl, ['sandbox', 'rate-source-down', 'off', '--json']);
    }
    await fresh(keyA);
    await fresh(keyB);
    const audit = (await onrampCli(databaseUrl, [
      'audit',
      '--target',
      'rate_source_down',
      '--json',
    ])) as { entries: Array<{ action: string; target_type: string; actor: string }> };
    expect(audit.entries.map((e) => [e.action, e.target_type])).toEqual([
      ['sandbox.rate_source_up', 'deployment'],
      ['sandbox.rate_source_down', 'deployment'],
    ]);
    expect(audit.entries[0].actor).toMatch(/^cli:/);
    await expect(onrampCli(databaseUrl, ['sandbox', 'rate-source-down', 'maybe'])).rejects.toThrow(
      /must be on or off/,
    );

    // The same switch on the admin GraphQL endpoint: an operator token, never a merchant's key.
    const { token } = (await onrampCli(databaseUrl, [
      'operators',
      'issue',
      '--name',
      'ada',
      '--json',
    ])) as { token: string };
    const admin = (key: string, down: boolean) =>
      request(stack.internalUrl, 'POST', '/admin/graphql', {
        key,
        body: { query: `mutation { setSandboxRateSourceDown(down: ${down}) }` },
      });
    expect((await admin(keyA, true)).status).toBe(401);
    expect((await admin(token, true)).body).toEqual({ data: { setSandboxRateSourceDown: true } });
    expect((await admin(token, false)).body).toEqual({ data: { setSandboxRateSourceDown: false } });
    const viaAdmin = (await onrampCli(databaseUrl, [
      'audit',
      '--target',
      'rate_source_down',
      '--limit',
      '2',
      '--json',
    ])) as { entries: Array<{ action: string; actor: string }> };
    expect(viaAdmin.entries.map((e) => [e.actor, e.action])).toEqual([
      ['operator:ada', 'sandbox.rate_source_up'],
      ['operator:ada', 'sandbox.rate_source_down'],
    ]);
    await fresh(keyB);
  });

  it('refuses webhook URLs aimed at loopback, private, link-local and metadata addresses', async () => {
    const databasePort = new URL(databaseUrl).port;
    const gatewayPort = new URL(stack.url).port;
    for (const url of [
      'http://169.254.169.254/latest/meta-data/',
      `http://127.0.0.1:${databasePort}/`,
      `http://localhost:${gatewayPort}/graphql`,
      'http://[::ffff:127.0.0.1]/',
      'http://[64:ff9b::7f00:1]/',
      'http://[::127.0.0.1]/',
      'http://[2002:a9fe:a9fe::]/',
      'http://[fd00:ec2::254]/',
      'http://2130706433/',
      'http://0x7f.1/',
      'http://10.0.0.1/',
    ]) {
      const answer = await graphql(
        stack.url,
        keyA,
        'mutation($u: String!) { setWebhookEndpoint(url: $u) { url } }',
        { u: url },
      );
      expect({ url, code: answer.body.errors?.[0].extensions?.code }).toEqual({
        url,
        code: 'INVALID_PARAMETER',
      });
    }
    const none = await graphql(stack.url, keyA, '{ merchant { webhookEndpoint { url } } }');
    expect(none.body.data).toEqual({ merchant: { webhookEndpoint: null } });
  });
});
