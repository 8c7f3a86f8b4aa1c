import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { createMerchant, onrampCli, startStack, type Stack } from '../support/stack';
import { openSocket, type TestSocket } from '../support/ws-socket';

/** Milliseconds until `check` holds (polled as fast as the gateway answers), or throws. */
async function msUntil(limitMs: number, check: () => Promise<boolean>): Promise<number> {
  const started = Date.now();
  for (;;) {
    if (await check()) return Date.now() - started;
    if (Date.now() - started > limitMs) throw new Error(`not within ${limitMs} ms`);
  }
}

/**
 * Two gateway processes on one database, each holding API key lookups in memory
 * (API_KEY_CACHE_TTL_MS at its default): a key revoked through one gateway, or by the
 * operator's CLI, is refused by the other within a second, over REST, GraphQL and new sockets;
 * its open socket on the other gateway closes.
 */
describe('API key cache across gateways (e2e)', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { RATE_LIMIT_PER_MINUTE: '1000000' },
      gateways: 2,
      runners: 0,
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Two Gateways Co'));
  });
  afterAll(async () => {
    for (const socket of sockets) socket.client.dispose();
    await stack?.stop();
  });

  const [first, second] = [0, 1].map((i) => () => stack.gateways[i].url);

  async function newKey(): Promise<{ id: string; secret: string }> {
    const response = await request(first(), 'POST', '/v1/api_keys', {
      key,
      body: { name: 'Cached', scopes: ['all'] },
    });
    if (response.status !== 201) throw new Error(`${response.status}: ${response.text}`);
    return response.body as { id: string; secret: string };
  }

  const restStatus = async (url: string, secret: string) =>
    (await request(url, 'GET', '/v1/deposits?per_page=1', { key: secret })).status;

  /** Used many times on both gateways, so each holds it in memory. */
  async function warm(secret: string): Promise<void> {
    for (let i = 0; i < 20; i += 1) {
      expect(await restStatus(first(), secret)).toBe(200);
      expect(await restStatus(second(), secret)).toBe(200);
    }
  }

  it('refuses on the other gateway within a second a key revoked through one (REST, GraphQL, sockets)', async () => {
    const created = await newKey();
    await warm(created.secret);
    const socket = openSocket(second(), { authorization: `Bearer ${created.secret}` });
    sockets.push(socket);
    await socket.connected;

    const revokedAt = Date.now();
    const revoked = await request(first(), 'DELETE', `/v1/api_keys/${created.id}`, { key });
    expect(revoked.status).toBe(200);
    const took = await msUntil(
      1_000,
      async () => (await restStatus(second(), created.secret)) === 401,
    );
    expect(took).toBeLessThan(1_000);
    expect(Date.now() - revokedAt).toBeLessThan(1_500);

    const answer = await graphql(second(), created.secret, '{ __typename }');
    expect(answer.status).toBe(401);
    const closed = await socket.closed;
    expect(closed.code).toBe(4401);
    const again = openSocket(second(), { authorization: `Bearer ${created.secret}` });
    sockets.push(again);
    await expect(again.connected).rejects.toThrow();
  });

  it("refuses on both gateways within a second a key the operator's CLI revoked", async () => {
    const created = await newKey();
    await warm(created.secret);
    await onrampCli(databaseUrl, ['keys', 'revoke', created.id, '--json']);
    const took = await msUntil(1_000, async () => {
      const statuses = await Promise.all(
        [first(), second()].map((url) => restStatus(url, created.secret)),
      );
      return statuses.every((status) => status === 401);
    });
    expect(took).toBeLessThan(1_000);
  });

  it('still takes a key created after the gateways saw its hash refused (no negative caching)', async () => {
    expect(await restStatus(second(), `sk_test_${'y'.repeat(40)}`)).toBe(401);
    const created = await newKey();
    expect(await restStatus(second(), created.secret)).toBe(200);
  });
});
