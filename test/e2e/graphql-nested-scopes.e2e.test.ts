import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { createMerchant, startStack, type Stack } from '../support/stack';

/**
 * Scopes hold at every depth (API.md, v0.3): a restricted key reaches `merchant` with
 * `balance:read`, but the webhook endpoint under it is `webhooks:write` data. Each nested field
 * that shows another scope's data is refused at its own path (INSUFFICIENT_SCOPE, null there)
 * while the rest of the document answers, over HTTP (Apollo the first time, the hot path after).
 * The websocket carries subscriptions only, and no nested field that needs a scope of its own
 * is reachable from `depositUpdated` (test/unit/scope-guard.test.ts holds that); the same
 * guarded schema serves it.
 */
const HOOK_URL = 'https://hooks.example.com/nested-scope-secret-path';
/** Enough sends of one document for the gateway's hot path to answer most of them. */
const REPEAT = 12;

interface GraphQLAnswer {
  data?: Record<string, unknown> | null;
  errors?: Array<{
    message: string;
    path?: Array<string | number>;
    extensions?: { code?: string };
  }>;
}

describe('GraphQL: scopes at every depth', () => {
  let stack: Stack;
  let key: string;
  let balanceKey: string;
  let balanceAndHooksKey: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = (await createMerchant(databaseUrl, 'Nested Scopes')).api_key;
    const created = async (path: string, body: unknown) => {
      const response = await request(stack.url, 'POST', path, { key, body });
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${response.text}`);
      return response.body;
    };
    await created('/v1/webhook_endpoints', { url: HOOK_URL, enabled_events: ['deposit.settled'] });
    balanceKey = (await created('/v1/api_keys', { name: 'balance', scopes: ['balance:read'] }))
      .secret;
    balanceAndHooksKey = (
      await created('/v1/api_keys', { name: 'both', scopes: ['balance:read', 'webhooks:write'] })
    ).secret;
  });
  afterAll(() => stack?.stop());

  /** The document sent REPEAT times over HTTP: every answer the same; the first returned. */
  async function answeredAlike(credential: string, query: string): Promise<GraphQLAnswer> {
    const texts: string[] = [];
    for (let i = 0; i < REPEAT; i += 1) {
      const response = await graphql(stack.url, credential, query);
      expect(response.status).toBe(200);
      texts.push(response.text);
    }
    for (const text of texts) expect(text).toBe(texts[0]);
    return JSON.parse(texts[0]) as GraphQLAnswer;
  }

  const refusedAt = (answer: GraphQLAnswer) =>
    (answer.errors ?? []).map((e) => [e.path?.join('.'), e.extensions?.code]);

  it('refuses merchant.webhookEndpoint to a balance:read key, at that path only', async () => {
    const answer = await answeredAlike(
      balanceKey,
      '{ merchant { name balance { usdAvailable } webhookEndpoint { url enabledEvents } } }',
    );
    expect(refusedAt(answer)).toEqual([['merchant.webhookEndpoint', 'INSUFFICIENT_SCOPE']]);
    expect(answer.errors?.[0].message).toMatch(/webhooks:write/);
    expect(answer.data).toEqual({
      merchant: {
        name: 'Nested Scopes',
        balance: { usdAvailable: expect.any(String) },
        webhookEndpoint: null,
      },
    });
    expect(JSON.stringify(answer)).not.toContain('hooks.example.com');
  });

  it('refuses it however the document reaches it: aliases, fragments, secrets', async () => {
    const cases = [
      '{ m: merchant { hook: webhookEndpoint { id url } } }',
      '{ merchant { ...Hooks } } fragment Hooks on Merchant { webhookEndpoint { secret } }',
      '{ merchant { ... on Merchant { webhookEndpoint { status enabled } } } }',
      '{ a: merchant { id } b: merchant { webhookEndpoint @include(if: true) { url } } }',
    ];
    for (const query of cases) {
      const answer = await answeredAlike(balanceKey, query);
      expect([query, refusedAt(answer).map(([, code]) => code)]).toEqual([
        query,
        ['INSUFFICIENT_SCOPE'],
      ]);
      const text = JSON.stringify(answer);
      expect(text).not.toContain('hooks.example.com');
      expect(text).not.toContain('whsec_');
    }
  });

  it('answers the nested field to a key that holds its scope too', async () => {
    const answer = await answeredAlike(
      balanceAndHooksKey,
      '{ merchant { name webhookEndpoint { url enabledEvents } } }',
    );
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      merchant: {
        name: 'Nested Scopes',
        webhookEndpoint: { url: HOOK_URL, enabledEvents: ['deposit.settled'] },
      },
    });
    const full = await answeredAlike(key, '{ merchant { webhookEndpoint { url } } }');
    expect(full.data).toEqual({ merchant: { webhookEndpoint: { url: HOOK_URL } } });
  });
});
