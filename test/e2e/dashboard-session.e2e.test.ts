import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';

/**
 * The dashboard's sign-in from outside a browser: a secret key becomes an HttpOnly,
 * SameSite=Strict cookie plus a CSRF token, and the cookie alone opens nothing.
 */
describe('dashboard sessions', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let merchantId: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Dash Co'));
  });
  afterAll(() => stack?.stop());

  async function signIn(apiKey = key) {
    const response = await request(stack.url, 'POST', '/dashboard/api/session', {
      body: { api_key: apiKey },
    });
    const setCookie = response.headers.get('set-cookie') ?? '';
    return { response, setCookie, cookie: setCookie.split(';')[0] };
  }

  const gqlWith = (headers: Record<string, string>, query: string) =>
    request(stack.url, 'POST', '/graphql', { headers, body: { query } });

  it('serves the page with a strict CSP, and only files under assets/', async () => {
    const page = await fetch(`${stack.url}/dashboard`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toMatch(/default-src 'self'/);
    expect(page.headers.get('content-security-policy')).toMatch(/script-src 'self'/);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    for (const path of [
      '/dashboard/assets/../../package.json',
      '/dashboard/assets/%2e%2e/%2e%2e/package.json',
      '/dashboard/assets/.hidden.js',
      '/dashboard/assets/nope.js',
      '/dashboard/assets/app.exe',
    ]) {
      const response = await request(stack.url, 'GET', path);
      expect([404]).toContain(response.status);
    }
  });

  it('refuses wrong keys, client secrets, bad bodies and other origins with the error shape', async () => {
    const wrong = await signIn('sk_test_' + 'x'.repeat(40));
    expect(wrong.response.status).toBe(401);
    expect(wrong.response.body).toEqual({
      error: { code: 'unauthorized', message: expect.any(String) },
    });
    expect(wrong.setCookie).toBe('');
    const onramp = await createBalanceOnramp(stack.url, key);
    const clientSecret = await signIn(onramp.client_secret);
    expect(clientSecret.response.status).toBe(401);
    expect(clientSecret.response.body.error.message).toMatch(/secret API key/);
    for (const body of [null, [], 'x', { api_key: 42 }, {}]) {
      const response = await request(stack.url, 'POST', '/dashboard/api/session', { body });
      expect([400, 401]).toContain(response.status);
      expect(response.body.error.code).toMatch(/^(invalid_parameter|unauthorized)$/);
    }
    const malformed = await request(stack.url, 'POST', '/dashboard/api/session', {
      rawBody: '{"api_key":',
    });
    expect(malformed.status).toBe(400);
    const crossSite = await request(stack.url, 'POST', '/dashboard/api/session', {
      body: { api_key: key },
      headers: { origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();
  });

  it('gives an HttpOnly SameSite=Strict cookie that works only with its CSRF token', async () => {
    const { response, setCookie, cookie } = await signIn();
    expect(response.status).toBe(201);
    expect(response.body).toEqual({
      csrf_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      merchant: { id: merchantId, name: 'Dash Co', environment: 'sandbox' },
      scopes: ['all'],
    });
    expect(setCookie).toMatch(/^onramp_session=[A-Za-z0-9_-]{43}; /);
    expect(setCookie).toMatch(/; HttpOnly/);
    expect(setCookie).toMatch(/; SameSite=Strict/);
    expect(setCookie).toMatch(/; Path=\//);
    const csrf = response.body.csrf_token as string;

    const again = await request(stack.url, 'GET', '/dashboard/api/session', {
      headers: { cookie },
    });
    expect(again.status).toBe(200);
    expect(again.body.csrf_token).toBe(csrf);

    const query = '{ merchant { id } }';
    const cookieOnly = await gqlWith({ cookie }, query);
    expect(cookieOnly.status).toBe(401);
    expect(cookieOnly.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    expect(cookieOnly.body.data).toBeUndefined();
    const wrongToken = await gqlWith({ cookie, 'x-csrf-token': 'x'.repeat(43) }, query);
    expect(wrongToken.status).toBe(401);
    const withToken = await gqlWith({ cookie, 'x-csrf-token': csrf }, query);
    expect(withToken.status).toBe(200);
    expect(withToken.body.data).toEqual({ merchant: { id: merchantId } });
    const rest = await request(stack.url, 'GET', '/v1/merchant/balance', {
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(rest.status).toBe(401);

    // Sign out needs the token too; afterwards the cookie is dead.
    const noToken = await request(stack.url, 'DELETE', '/dashboard/api/session', {
      headers: { cookie },
    });
    expect(noToken.status).toBe(401);
    const out = await request(stack.url, 'DELETE', '/dashboard/api/session', {
      headers: { cookie, 'x-csrf-token': csrf },
    });
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^onramp_session=; .*Max-Age=0/);
    expect((await gqlWith({ cookie, 'x-csrf-token': csrf }, query)).status).toBe(401);
    expect(
      (await request(stack.url, 'GET', '/dashboard/api/session', { headers: { cookie } })).status,
    ).toBe(401);
  });

  it('ends the session when its key is revoked', async () => {
    const issued = (await onrampCli(databaseUrl, [
      'keys',
      'issue',
      '--merchant',
      merchantId,
      '--json',
    ])) as { key_id: string; api_key: string };
    const { response, cookie } = await signIn(issued.api_key);
    const csrf = response.body.csrf_token as string;
    expect((await gqlWith({ cookie, 'x-csrf-token': csrf }, '{ merchant { id } }')).status).toBe(
      200,
    );
    await onrampCli(databaseUrl, ['keys', 'revoke', issued.key_id]);
    expect((await gqlWith({ cookie, 'x-csrf-token': csrf }, '{ merchant { id } }')).status).toBe(
      401,
    );
  });

  function dashboardSocket(cookie: string | undefined, csrf: string, origin: string) {
    return createClient({
      url: `${stack.url.replace(/^http/, 'ws')}/graphql`,
      webSocketImpl: class extends WebSocket {
        constructor(address: string, protocols?: string | string[]) {
          super(address, protocols, { headers: { ...(cookie ? { cookie } : {}), origin } });
        }
      },
      connectionParams: { csrfToken: csrf },
      retryAttempts: 0,
      lazy: true,
    });
  }

  it('opens the dashboard socket with cookie, CSRF token and same Origin only; live updates flow', async () => {
    const { response, cookie } = await signIn();
    const csrf = response.body.csrf_token as string;
    const closeCode = (client: ReturnType<typeof createClient>) =>
      new Promise<number>((resolve) => {
        client.on('closed', (event) => resolve((event as { code: number }).code));
        client.subscribe(
          { query: '{ merchant { id } }' },
          {
            next: () => undefined,
            error: () => undefined,
            complete: () => undefined,
          },
        );
      });
    expect(await closeCode(dashboardSocket(undefined, csrf, stack.url))).toBe(4401);
    expect(await closeCode(dashboardSocket(cookie, 'x'.repeat(43), stack.url))).toBe(4401);
    expect(await closeCode(dashboardSocket(cookie, csrf, 'https://evil.example'))).toBe(4401);

    const client = dashboardSocket(cookie, csrf, stack.url);
    const statuses: string[] = [];
    const connected = new Promise<void>((resolve) => client.on('connected', () => resolve()));
    client.subscribe<{ depositUpdated: { status: string } }>(
      { query: 'subscription { depositUpdated { depositId status } }' },
      {
        next: (m) => statuses.push(m.data!.depositUpdated.status),
        error: () => undefined,
        complete: () => undefined,
      },
    );
    try {
      await connected;
      await new Promise((r) => setTimeout(r, 300));
      const onramp = await createBalanceOnramp(stack.url, key);
      const deposit = await sandboxTransfer(
        stack.url,
        key,
        onramp.virtual_account.account_number,
        '15000',
      );
      await eventually(async () => (statuses.length >= 2 ? true : undefined));
      expect(statuses).toEqual(['PENDING_FX', 'SETTLED']);

      // The fields the dashboard's detail view and chart read.
      const detail = await graphql(
        stack.url,
        key,
        `
          query ($id: ID!) {
            deposit(id: $id) {
              statusHistory {
                status
                event
                at
              }
            }
          }
        `,
        { id: deposit.deposit_id },
      );
      expect(detail.body.data.deposit.statusHistory).toEqual([
        { status: 'PENDING_FX', event: 'deposit.created', at: expect.any(String) },
        { status: 'SETTLED', event: 'deposit.settled', at: expect.any(String) },
      ]);
      const settled = await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, {
        key,
      });
      const volume = await graphql(stack.url, key, '{ settledVolume(days: 3) { day usd count } }');
      const days = volume.body.data.settledVolume as Array<{
        day: string;
        usd: string;
        count: number;
      }>;
      expect(days).toHaveLength(3);
      expect(days[2].count).toBeGreaterThanOrEqual(1);
      expect(days[2].usd).toMatch(/^\d+\.\d{6}$/);
      expect(Number(days[2].usd)).toBeGreaterThanOrEqual(Number(settled.body.amount_asset));
      for (const bad of [0, 367, -1]) {
        const refused = await graphql(stack.url, key, `{ settledVolume(days: ${bad}) { day } }`);
        expect(refused.body.errors![0].extensions?.code).toBe('INVALID_PARAMETER');
      }
    } finally {
      await client.dispose();
    }
  });
});
