import WebSocket from 'ws';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { balanceOnramp, freshRate, randomAddress, sandboxTransfer } from '../support/onramps';
import { sql } from '../support/sql';
import { openSocket, type Operation, type TestSocket } from '../support/ws-socket';

const SUBSCRIPTION = 'subscription { depositUpdated { depositId status } }';
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Resolves with an operation's `error` message once it arrives. */
const errorOf = (operation: Operation) =>
  eventually(async () => (operation.errors.length > 0 ? operation.errors : undefined), 10_000);

/**
 * The websocket carries subscriptions only (queries and mutations belong on HTTP, where the
 * rate limit and idempotency apply), and one credential's sockets and subscriptions are capped.
 */
describe('websocket: subscriptions only, capped per credential', () => {
  let stack: Stack;
  let databaseUrl: string;
  const sockets: TestSocket[] = [];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        WS_MAX_SOCKETS_PER_KEY: '3',
        WS_MAX_SUBSCRIPTIONS_PER_SOCKET: '2',
        WS_MAX_SUBSCRIPTIONS_PER_KEY: '3',
      },
    });
  });
  afterAll(async () => {
    await Promise.all(sockets.map((s) => s.client.dispose()));
    await stack?.stop();
  });

  function socket(key: string): TestSocket {
    const s = openSocket(stack.url, { authorization: `Bearer ${key}` });
    sockets.push(s);
    return s;
  }

  const balance = async (key: string) =>
    (await request(stack.url, 'GET', '/v1/merchant/balance', { key })).body.balances;

  it('a query and a withdraw mutation are refused with an error and not run; the socket stays open', async () => {
    const { api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Rich Co');
    // A balance to withdraw from: a MERCHANT_BALANCE deposit that settles.
    const rate = await freshRate(stack.url, key);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: balanceOnramp(rate.rate_id),
    });
    expect(created.status).toBe(201);
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      created.body.virtual_account.account_number,
      '150000',
    );
    await eventually(async () => {
      const read = await request(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key });
      return read.body.status === 'SETTLED' ? true : undefined;
    });
    const before = await balance(key);
    expect(Number(before.usd_available)).toBeGreaterThan(5);

    const s = socket(key);
    await s.connected;
    const live = s.run(SUBSCRIPTION);
    const query = s.run('{ merchant { id balance { usdAvailable } webhookEndpoint { secret } } }');
    const withdraw = s.run(
      `mutation ($address: String!) {
         withdraw(input: { amount: "5", asset: "USDC", chain: "BASE", destinationAddress: $address }) {
           id status
         }
       }`,
      { address: randomAddress() },
    );
    for (const [operation, kind] of [
      [query, 'query'],
      [withdraw, 'mutation'],
    ] as const) {
      const [error] = await errorOf(operation);
      expect(error.message).toBe(
        `The websocket carries subscriptions only; send this ${kind} with HTTP POST /graphql`,
      );
      expect(error.extensions?.code).toBe('INVALID_PARAMETER');
      expect(operation.results).toEqual([]);
    }
    // Not run: the balance did not move and no withdrawal exists.
    expect(await balance(key)).toEqual(before);
    const [{ n }] = await sql<{ n: number }>(
      databaseUrl,
      'select count(*)::int as n from withdrawals where merchant_id = $1',
      [merchantId],
    );
    expect(n).toBe(0);
    // The error was per operation: the socket and its subscription live on.
    expect(s.isClosed()).toBe(false);
    expect(live.errors).toEqual([]);
    // Over HTTP, the same withdrawal runs.
    const http = await request(stack.url, 'POST', '/v1/merchant/withdraw', {
      key,
      body: { amount: '5', asset: 'USDC', chain: 'BASE', destination_address: randomAddress() },
    });
    expect(http.status).toBe(202);
  });

  it('a repeated long subscription id closes 4409 with a cut reason, never 4500', async () => {
    const merchant = await createMerchant(databaseUrl, 'Long Id Co');
    const socket = new WebSocket(
      `${stack.url.replace(/^http/, 'ws')}/graphql`,
      'graphql-transport-ws',
    );
    const closed = new Promise<{ code: number; reason: string }>((resolve) =>
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
    );
    await new Promise((resolve) => socket.on('open', resolve));
    socket.send(
      JSON.stringify({
        type: 'connection_init',
        payload: { authorization: `Bearer ${merchant.api_key}` },
      }),
    );
    await new Promise((resolve) => socket.once('message', resolve));
    const subscribe = {
      id: 'x'.repeat(300),
      type: 'subscribe',
      payload: { query: 'subscription { depositUpdated { depositId } }' },
    };
    socket.send(JSON.stringify(subscribe));
    socket.send(JSON.stringify(subscribe));
    const { code, reason } = await closed;
    expect(code).toBe(4409);
    expect(reason).toMatch(/^Subscriber for x+$/);
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
  });

  it('refuses broken documents and hostile variables as INVALID_PARAMETER, not an internal error', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Typo Co');
    const s = socket(key);
    await s.connected;
    const operations = [
      s.run('subscription { depositUpdated {'),
      s.run('subscription { depositUpdated { noSuchField } }'),
      s.run('subscription ($id: ID) { depositUpdated(depositId: $id) { depositId } }', {
        id: 'dep_\u0000',
      }),
    ];
    await eventually(async () => (operations.every((o) => o.errors.length > 0) ? true : undefined));
    for (const operation of operations) {
      expect(operation.errors[0].extensions?.code).toBe('INVALID_PARAMETER');
    }
    expect(s.isClosed()).toBe(false);
  });

  it('a socket past the per-key cap is closed with 4429 and a clear reason; a freed place is reusable', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Many Sockets Co');
    const { api_key: otherKey } = await createMerchant(databaseUrl, 'Other Sockets Co');
    const first = [socket(key), socket(key), socket(key)];
    await Promise.all(first.map((s) => s.connected));
    const fourth = socket(key);
    const close = await fourth.closed;
    expect(close.code).toBe(4429);
    expect(close.reason).toBe('Too many sockets: this API key already has 3 open (limit 3)');
    // Another key is counted on its own.
    const other = socket(otherKey);
    await other.connected;
    // Closing one frees its place.
    await first[0].client.dispose();
    await eventually(async () => {
      const next = socket(key);
      try {
        await next.connected;
        return true;
      } catch {
        return undefined;
      }
    });
    expect(first.slice(1).some((s) => s.isClosed())).toBe(false);
  });

  it('subscriptions past the per-socket and per-key caps get an error; completing one frees a place', async () => {
    const { api_key: key } = await createMerchant(databaseUrl, 'Many Subscriptions Co');
    const a = socket(key);
    const b = socket(key);
    await Promise.all([a.connected, b.connected]);
    const a1 = a.run(SUBSCRIPTION);
    const a2 = a.run(SUBSCRIPTION);
    const a3 = a.run(SUBSCRIPTION);
    const [perSocket] = await errorOf(a3);
    expect(perSocket.message).toBe(
      'Too many subscriptions on this socket (limit 2); complete one first',
    );
    expect(perSocket.extensions?.code).toBe('RATE_LIMITED');

    const b1 = b.run(SUBSCRIPTION);
    await pause(300);
    const b2 = b.run(SUBSCRIPTION);
    const [perKey] = await errorOf(b2);
    expect(perKey.message).toBe(
      'Too many subscriptions for this credential (limit 3); complete one first',
    );
    expect(perKey.extensions?.code).toBe('RATE_LIMITED');
    for (const kept of [a1, a2, b1]) expect(kept.errors).toEqual([]);
    expect(a.isClosed() || b.isClosed()).toBe(false);

    // Completing one frees its place for the key.
    a1.stop();
    await pause(300);
    const b3 = b.run(SUBSCRIPTION);
    await pause(1_000);
    expect(b3.errors).toEqual([]);
  });
});
