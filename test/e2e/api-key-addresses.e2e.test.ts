import WebSocket from 'ws';
import { createClient } from 'graphql-ws';
import { createTestDatabase } from '../support/db';
import { rawRequest, request } from '../support/http';
import { createBalanceOnramp, sandboxTransfer } from '../support/onramps';
import {
  baseEnv,
  createMerchant,
  startGateway,
  startStack,
  type Gateway,
  type Stack,
} from '../support/stack';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';

function socketFrom(httpUrl: string, authorization: string, localAddress: string) {
  let closed: (value: { code: number; reason: string }) => void = () => undefined;
  const closedAt = new Promise<{ code: number; reason: string }>((resolve) => (closed = resolve));
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { localAddress });
      }
    },
    connectionParams: { authorization },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (event) => closed(event as { code: number; reason: string }) },
  });
  const connected = new Promise<boolean>((resolve) => {
    client.on('connected', () => resolve(true));
    void closedAt.then(() => resolve(false));
  });
  return { client, closed: closedAt, connected };
}

/**
 * A key's `allowed_ips` against real source addresses (Linux answers on all of 127.0.0.0/8, so
 * a client binds 127.0.0.2 or 127.0.0.1: no header trick), behind a trusted proxy, over REST,
 * GraphQL, the websocket and the dashboard.
 */
describe('API keys held to client addresses (e2e)', () => {
  let stack: Stack;
  let databaseUrl: string;
  /** A gateway behind a trusted proxy on loopback (TRUST_PROXY=127.0.0.1). */
  let proxied: Gateway;
  let key: string;
  const sockets: Array<{ client: { dispose(): void } }> = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const env = { RATE_LIMIT_PER_MINUTE: '100000' };
    stack = await startStack(databaseUrl, { env });
    proxied = await startGateway(
      gatewayEnvironment(baseEnv(databaseUrl, { ...env, TRUST_PROXY: '127.0.0.1' })),
    );
    ({ api_key: key } = await createMerchant(databaseUrl, 'Addresses Co'));
    const onramp = await createBalanceOnramp(stack.url, key);
    // A deposit for the allowed reads to find.
    await sandboxTransfer(stack.url, key, onramp.virtual_account.account_number, '15000.00');
  });
  afterAll(async () => {
    for (const socket of sockets) socket.client.dispose();
    await Promise.all([stack?.stop(), proxied?.stop()]);
  });

  async function createKey(body: Record<string, unknown>, withKey = key) {
    const response = await request(stack.url, 'POST', '/v1/api_keys', { key: withKey, body });
    if (response.status !== 201) throw new Error(`${response.status}: ${response.text}`);
    return response.body as { id: string; secret: string; scopes: string[] };
  }

  it('holds a key to its allowed_ips: real source addresses, REST, GraphQL and websocket', async () => {
    const { secret } = await createKey({
      name: 'Loopback two',
      scopes: ['deposits:read'],
      allowed_ips: ['127.0.0.2/32'],
    });
    const from = (localAddress: string, path = '/v1/deposits') =>
      rawRequest(stack.url, 'GET', path, {
        localAddress,
        headers: { authorization: `Bearer ${secret}` },
      });
    expect((await from('127.0.0.2')).status).toBe(200);
    const refused = await from('127.0.0.1');
    expect(refused.status).toBe(403);
    expect(refused.body.error).toEqual({
      code: 'ip_not_allowed',
      message: 'This API key may not be used from 127.0.0.1',
    });
    // The address is checked before the scope: a route it lacks still says ip_not_allowed.
    expect((await from('127.0.0.1', '/v1/merchant/balance')).body.error.code).toBe(
      'ip_not_allowed',
    );
    expect((await from('127.0.0.2', '/v1/merchant/balance')).body.error.code).toBe(
      'insufficient_scope',
    );
    const gql = (localAddress: string) =>
      rawRequest(stack.url, 'POST', '/graphql', {
        localAddress,
        headers: { authorization: `Bearer ${secret}` },
        body: JSON.stringify({ query: '{ deposits(first: 1) { totalCount } }' }),
      });
    expect((await gql('127.0.0.2')).body.data.deposits.totalCount).toBeGreaterThanOrEqual(1);
    const gqlRefused = await gql('127.0.0.1');
    expect(gqlRefused.status).toBe(403);
    expect(gqlRefused.body.errors[0].extensions.code).toBe('IP_NOT_ALLOWED');

    const good = socketFrom(stack.url, `Bearer ${secret}`, '127.0.0.2');
    sockets.push(good);
    expect(await good.connected).toBe(true);
    const bad = socketFrom(stack.url, `Bearer ${secret}`, '127.0.0.1');
    sockets.push(bad);
    expect(await bad.connected).toBe(false);
    const closed = await bad.closed;
    expect(closed.code).toBe(4403);
    expect(closed.reason).toMatch(/may not be used from 127\.0\.0\.1/);
  });

  it('takes the client address from X-Forwarded-For only behind a trusted proxy', async () => {
    const { secret } = await createKey({
      name: 'Behind proxy',
      scopes: ['deposits:read'],
      allowed_ips: ['198.51.100.0/24'],
    });
    const via = (url: string, forwarded: string) =>
      rawRequest(url, 'GET', '/v1/deposits', {
        localAddress: '127.0.0.1',
        headers: { authorization: `Bearer ${secret}`, 'x-forwarded-for': forwarded },
      });
    expect((await via(proxied.url, '198.51.100.7')).status).toBe(200);
    expect((await via(proxied.url, '203.0.113.9')).body.error.code).toBe('ip_not_allowed');
    // The nearest untrusted hop decides, not a spoofed first entry.
    expect((await via(proxied.url, '198.51.100.7, 203.0.113.9')).status).toBe(403);
    // Without TRUST_PROXY the header is ignored: the peer, 127.0.0.1, is not allowed.
    expect((await via(stack.url, '198.51.100.7')).body.error.code).toBe('ip_not_allowed');
  });

  it('refuses an unknown key 401 before any address or scope check', async () => {
    const response = await rawRequest(stack.url, 'GET', '/v1/merchant/balance', {
      localAddress: '127.0.0.3',
      headers: { authorization: `Bearer rk_test_${'a'.repeat(40)}` },
    });
    expect(response.status).toBe(401);
  });

  it('lets a dashboard session opened with a restricted key act with its scopes and addresses', async () => {
    const { secret } = await createKey({ name: 'Dashboard', scopes: ['deposits:read'] });
    const signIn = await request(stack.url, 'POST', '/dashboard/api/session', {
      body: { api_key: secret },
    });
    expect(signIn.status).toBe(201);
    expect(signIn.body.scopes).toEqual(['deposits:read']);
    const headers = {
      cookie: (signIn.headers.get('set-cookie') ?? '').split(';')[0],
      'x-csrf-token': signIn.body.csrf_token as string,
    };
    const response = await request(stack.url, 'POST', '/graphql', {
      headers,
      body: { query: '{ deposits(first: 1) { totalCount } onramp(id: "onr_x") { onrampId } }' },
    });
    expect(response.body.data.deposits.totalCount).toBeGreaterThanOrEqual(1);
    expect(response.body.errors[0].extensions.code).toBe('INSUFFICIENT_SCOPE');

    const held = await createKey({
      name: 'Dashboard elsewhere',
      scopes: ['deposits:read'],
      allowed_ips: ['203.0.113.0/24'],
    });
    const refused = await request(stack.url, 'POST', '/dashboard/api/session', {
      body: { api_key: held.secret },
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('ip_not_allowed');
  });
});
