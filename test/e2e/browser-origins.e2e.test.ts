import { createTestDatabase } from '../support/db';
import { graphql, request, type HttpResponse } from '../support/http';
import { createBalanceOnramp, type CreatedOnramp } from '../support/onramps';
import { createMerchant, startStack, type Stack } from '../support/stack';
import { sql } from '../support/sql';
import { openSocket } from '../support/ws-socket';

const SHOP = 'https://shop.example.com';
const OTHER = 'https://evil.example.net';
const ONRAMP_QUERY = 'query($id: ID!) { onramp(id: $id) { id status } }';

/**
 * docs/api.md "Browsers" over real HTTP and websockets against the gateway process: CORS
 * preflights from any origin, `Access-Control-Allow-Origin` only for a client secret used from
 * one of its merchant's `allowed_origins`, 403 `origin_not_allowed` from another page, and a
 * secret or restricted key from another site's page refused 403 `forbidden` without being
 * revoked. Requests without Origin (servers) are untouched.
 */
describe('browsers: CORS, allowed_origins and keys in pages (e2e)', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let onramp: CreatedOnramp;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Browser Shop'));
    onramp = await createBalanceOnramp(stack.url, key);
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const fromPage = (
    origin: string,
    method: string,
    path: string,
    credential: string,
    body?: unknown,
  ) => request(stack.url, method, path, { key: credential, body, headers: { origin } });
  const graphqlFromPage = (origin: string, credential: string) =>
    fromPage(origin, 'POST', '/graphql', credential, {
      query: ONRAMP_QUERY,
      variables: { id: onramp.onramp_id },
    });
  const allowOrigin = (response: HttpResponse) =>
    response.headers.get('access-control-allow-origin');
  const settings = (body: unknown) =>
    request(stack.url, 'PATCH', '/v1/merchant/settings', { key, body });

  it('answers preflights on /graphql and /v1/* from any origin, never allowing credentials', async () => {
    for (const path of ['/graphql', '/v1/onramp/onr_x', '/v1/deposits']) {
      for (const origin of [SHOP, OTHER, 'null']) {
        const response = await request(stack.url, 'OPTIONS', path, {
          headers: {
            origin,
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'authorization,content-type,idempotency-key',
          },
        });
        expect(response.status).toBe(204);
        expect(allowOrigin(response)).toBe(origin);
        const allowed = (response.headers.get('access-control-allow-headers') ?? '').split(/,\s*/);
        expect(allowed).toEqual(
          expect.arrayContaining(['authorization', 'content-type', 'idempotency-key']),
        );
        expect(response.headers.get('access-control-allow-methods')).toMatch(/POST/);
        expect(response.headers.get('access-control-allow-credentials')).toBeNull();
      }
    }
    // The dashboard's sign-in is not for other sites: no CORS answer there.
    const dashboard = await request(stack.url, 'OPTIONS', '/dashboard/api/session', {
      headers: { origin: SHOP, 'access-control-request-method': 'POST' },
    });
    expect(dashboard.status).toBe(404);
    expect(allowOrigin(dashboard)).toBeNull();
  });

  it('allowed_origins: shown, validated, set over REST and GraphQL, and sent as settings_updated', async () => {
    const before = await request(stack.url, 'GET', '/v1/merchant/settings', { key });
    expect(before.body.allowed_origins).toEqual([]);
    for (const bad of [
      ['https://shop.example.com/'],
      ['https://*.example.com'],
      ['http://shop.example.com'],
      ['https://Shop.example.com'],
      'https://shop.example.com',
    ]) {
      const refused = await settings({ allowed_origins: bad });
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('invalid_parameter');
    }
    const set = await settings({ allowed_origins: [SHOP, 'https://app.example.com:8443'] });
    expect(set.status).toBe(200);
    expect(set.body.allowed_origins).toEqual([SHOP, 'https://app.example.com:8443']);
    const gql = await graphql(
      stack.url,
      key,
      'mutation($o: [String!]) { updateMerchantSettings(input: {allowedOrigins: $o}) { allowedOrigins } }',
      { o: [SHOP] },
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.updateMerchantSettings.allowedOrigins).toEqual([SHOP]);
    const badGql = await graphql(
      stack.url,
      key,
      'mutation { updateMerchantSettings(input: {allowedOrigins: ["https://x.example/"]}) { allowedOrigins } }',
    );
    expect(badGql.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
    const read = await graphql(stack.url, key, '{ merchantSettings { allowedOrigins } }');
    expect(read.body.data.merchantSettings.allowedOrigins).toEqual([SHOP]);
    // Each change is audited and sent to the merchant, as every settings change is.
    const events = await sql<{ snapshot: { allowed_origins: string[] } }>(
      databaseUrl,
      "select snapshot from events where kind = 'merchant.settings_updated' order by seq",
    );
    expect(events.map((e) => e.snapshot.allowed_origins)).toEqual([
      [SHOP, 'https://app.example.com:8443'],
      [SHOP],
    ]);
    const audit = await sql<{ after: { allowed_origins: string[] } }>(
      databaseUrl,
      "select after from audit_log where action = 'merchant.settings_update' order by created_at, id",
    );
    expect(audit.map((a) => a.after.allowed_origins)).toEqual([
      [SHOP, 'https://app.example.com:8443'],
      [SHOP],
    ]);
  });

  it('a client secret from an allowed origin gets its answer with Access-Control-Allow-Origin', async () => {
    await settings({ allowed_origins: [SHOP] });
    const rest = await fromPage(
      SHOP,
      'GET',
      `/v1/onramp/${onramp.onramp_id}`,
      onramp.client_secret,
    );
    expect(rest.status).toBe(200);
    expect(rest.body.onramp_id).toBe(onramp.onramp_id);
    expect(allowOrigin(rest)).toBe(SHOP);
    expect(rest.headers.get('access-control-allow-credentials')).toBeNull();
    expect(rest.headers.get('vary')).toMatch(/origin/i);
    const gql = await graphqlFromPage(SHOP, onramp.client_secret);
    expect(gql.status).toBe(200);
    expect(gql.body.data.onramp.id).toBe(onramp.onramp_id);
    expect(allowOrigin(gql)).toBe(SHOP);
    // An error of an allowed call is readable by the page too (another onramp: forbidden).
    const other = await fromPage(SHOP, 'GET', '/v1/onramp/onr_unknown', onramp.client_secret);
    expect(other.status).toBe(403);
    expect(other.body.error.code).toBe('forbidden');
    expect(allowOrigin(other)).toBe(SHOP);
  });

  it('a client secret from another origin: 403 origin_not_allowed (GraphQL too), no CORS answer', async () => {
    await settings({ allowed_origins: [SHOP] });
    for (const origin of [
      OTHER,
      'null',
      'https://shop.example.com:8443',
      'http://shop.example.com',
    ]) {
      const rest = await fromPage(
        origin,
        'GET',
        `/v1/onramp/${onramp.onramp_id}`,
        onramp.client_secret,
      );
      expect(rest.status).toBe(403);
      expect(rest.body.error.code).toBe('origin_not_allowed');
      expect(allowOrigin(rest)).toBeNull();
      const gql = await graphqlFromPage(origin, onramp.client_secret);
      expect(gql.status).toBe(403);
      expect(gql.body.errors[0].extensions.code).toBe('ORIGIN_NOT_ALLOWED');
      expect(allowOrigin(gql)).toBeNull();
    }
    // Without Origin (a server), or from the service's own pages, nothing changes.
    const server = await request(stack.url, 'GET', `/v1/onramp/${onramp.onramp_id}`, {
      key: onramp.client_secret,
    });
    expect(server.status).toBe(200);
    expect(allowOrigin(server)).toBeNull();
    const own = await fromPage(
      stack.url,
      'GET',
      `/v1/onramp/${onramp.onramp_id}`,
      onramp.client_secret,
    );
    expect(own.status).toBe(200);
    // The sandbox allows any http://localhost port besides the list.
    const local = await graphqlFromPage('http://localhost:5173', onramp.client_secret);
    expect(local.status).toBe(200);
    expect(allowOrigin(local)).toBe('http://localhost:5173');
    // Removing the origin takes effect on the next call.
    await settings({ allowed_origins: [] });
    const removed = await graphqlFromPage(SHOP, onramp.client_secret);
    expect(removed.status).toBe(403);
    expect(removed.body.errors[0].extensions.code).toBe('ORIGIN_NOT_ALLOWED');
  });

  it('secret and restricted keys from a page of another site: 403 forbidden, and the key still works', async () => {
    await settings({ allowed_origins: [SHOP] });
    const created = await request(stack.url, 'POST', '/v1/api_keys', {
      key,
      body: { name: 'Reader', scopes: ['onramps:read'] },
    });
    expect(created.status).toBe(201);
    const restricted = created.body.secret as string;
    // Even from an origin the merchant allows for client secrets.
    for (const credential of [key, restricted]) {
      for (const origin of [SHOP, OTHER]) {
        const rest = await fromPage(origin, 'GET', `/v1/onramp/${onramp.onramp_id}`, credential);
        expect(rest.status).toBe(403);
        expect(rest.body.error.code).toBe('forbidden');
        expect(rest.body.error.message).toMatch(/server/);
        expect(allowOrigin(rest)).toBeNull();
        const gql = await graphqlFromPage(origin, credential);
        expect(gql.status).toBe(403);
        expect(gql.body.errors[0].extensions.code).toBe('FORBIDDEN');
      }
      const write = await fromPage(OTHER, 'PATCH', '/v1/merchant/settings', credential, {
        allowed_origins: [OTHER],
      });
      expect(write.status).toBe(403);
      expect(write.body.error.code).toBe('forbidden');
      // Not revoked: the same key from the merchant's server (no Origin) and its own pages.
      const server = await request(stack.url, 'GET', `/v1/onramp/${onramp.onramp_id}`, {
        key: credential,
      });
      expect(server.status).toBe(200);
      const own = await fromPage(stack.url, 'GET', `/v1/onramp/${onramp.onramp_id}`, credential);
      expect(own.status).toBe(200);
    }
    const after = await request(stack.url, 'GET', '/v1/merchant/settings', { key });
    expect(after.body.allowed_origins).toEqual([SHOP]);
  });

  it('websockets: the upgrade Origin decides as over HTTP (4403); allowed ones subscribe', async () => {
    await settings({ allowed_origins: [SHOP] });
    const bearer = (credential: string) => `Bearer ${credential}`;
    const refusedSecret = openSocket(stack.url, {
      authorization: bearer(onramp.client_secret),
      origin: OTHER,
    });
    const secretClosed = await refusedSecret.closed;
    expect(secretClosed.code).toBe(4403);
    expect(secretClosed.reason).toMatch(/allowed_origins/);
    const refusedKey = openSocket(stack.url, { authorization: bearer(key), origin: SHOP });
    const keyClosed = await refusedKey.closed;
    expect(keyClosed.code).toBe(4403);
    expect(keyClosed.reason).toMatch(/server/);
    const allowed = openSocket(stack.url, {
      authorization: bearer(onramp.client_secret),
      origin: SHOP,
    });
    await allowed.connected;
    const server = openSocket(stack.url, { authorization: bearer(key) });
    await server.connected;
    for (const socket of [allowed, server]) socket.client.dispose();
  });
});
