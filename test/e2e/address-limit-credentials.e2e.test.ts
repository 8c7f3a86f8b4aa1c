import { request as httpRequest } from 'node:http';
import WebSocket from 'ws';
import { createTestDatabase } from '../support/db';
import { graphql, request, type HttpResponse } from '../support/http';
import { createMerchant, startStack, type Stack } from '../support/stack';
import {
  ADDRESS_LIMIT,
  badKey,
  earlyInAMinute,
  expectRefused,
  from,
  sleep,
  statuses,
  createKeyWith,
} from '../support/address-limit';

/**
 * The per-address limit decided by the credential being tried (API.md, "Money leaves only
 * where it should"): a valid key in one place never exempts a guess in another, and past the
 * limit a guess is refused before it is looked up, right or wrong. And 403 refusals count
 * against the key's own per-minute limit. Each case sends from its own loopback address.
 */

const KEY_LIMIT = 20;

/** A POST whose headers go now and whose body goes when `send` is called. */
function slowPost(
  localAddress: string,
  baseUrl: string,
  path: string,
  headers: Record<string, string | number>,
) {
  const { hostname, port } = new URL(baseUrl);
  let answered: (response: HttpResponse) => void = () => undefined;
  const answer = new Promise<HttpResponse>((resolve) => (answered = resolve));
  const req = httpRequest(
    { hostname, port, path, method: 'POST', localAddress, agent: false, headers },
    (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const out = new Headers();
        for (const [name, value] of Object.entries(res.headers)) {
          if (typeof value === 'string') out.set(name, value);
        }
        answered({ status: res.statusCode!, headers: out, body: JSON.parse(text), text });
      });
    },
  );
  req.flushHeaders();
  return { send: (body: string) => (req.end(body), answer) };
}

/** Opens a graphql-ws socket from `localAddress`; resolves with its close code (1000: acked). */
const connect = (baseUrl: string, localAddress: string, authorization: string) =>
  new Promise<number>((resolve, reject) => {
    const socket = new WebSocket(
      `${baseUrl.replace(/^http/, 'ws')}/graphql`,
      'graphql-transport-ws',
      {
        localAddress,
      },
    );
    socket.on('open', () =>
      socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization } })),
    );
    socket.on('message', () => socket.close(1000));
    socket.on('close', (code) => resolve(code));
    socket.on('error', reject);
  });

describe('the per-address limit counts the credential being tried, wherever it is', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      runners: 0,
      // Empty is unset: the default address limit, not the raised one the stack sets.
      env: { RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '', RATE_LIMIT_PER_MINUTE: String(KEY_LIMIT) },
    });
    key = (await createMerchant(databaseUrl, 'Presented Co')).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  /** A key of the merchant's, made from 127.0.0.1: no other address has ever used it. */
  const newKey = (body: Record<string, unknown>) => createKeyWith(stack.url, key, body);
  const balanceWith = (address: string, k: string) =>
    from(address, stack.url, 'GET', '/v1/merchant/balance', {
      headers: { authorization: `Bearer ${k}` },
    });

  it('a valid key in the header never exempts the key in a sign-in body: a right guess is 429, not 201', async () => {
    const address = '127.0.0.31';
    const guessed = await newKey({ name: 'Guessed', scopes: ['all'] });
    expect((await balanceWith(address, key)).status).toBe(200);
    const signIn = (apiKey: string) =>
      from(address, stack.url, 'POST', '/dashboard/api/session', {
        headers: { origin: stack.url, authorization: `Bearer ${key}` },
        body: JSON.stringify({ api_key: apiKey }),
      });
    await earlyInAMinute();
    // Bad keys in the body count, whatever the header holds.
    expect(await statuses(ADDRESS_LIMIT, () => signIn(badKey()))).toEqual(
      Array(ADDRESS_LIMIT).fill(401),
    );
    expectRefused(await signIn(badKey()));
    // Past the limit a guess is refused before it is looked up, right or wrong.
    expectRefused(await signIn(guessed));
    // A sign-in is never exempt, not even with the header's own key in the body.
    expectRefused(await signIn(key));
    // A right key this address never used is refused in the header too...
    expectRefused(await balanceWith(address, guessed));
    // ...while the key that authenticated here before the refusal began still works.
    expect((await balanceWith(address, key)).status).toBe(200);
  });

  it('a sign-in whose body arrives after the address was refused is refused before its lookup', async () => {
    const address = '127.0.0.32';
    const guessed = await newKey({ name: 'Slow guess', scopes: ['all'] });
    await earlyInAMinute();
    const slow = slowPost(address, stack.url, '/dashboard/api/session', {
      origin: stack.url,
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(JSON.stringify({ api_key: guessed })),
    });
    await sleep(300); // its headers are in, its address not yet refused
    expect(await statuses(ADDRESS_LIMIT, () => balanceWith(address, badKey()))).toEqual(
      Array(ADDRESS_LIMIT).fill(401),
    );
    expectRefused(await balanceWith(address, badKey()));
    expectRefused(await slow.send(JSON.stringify({ api_key: guessed })));
  });

  it('connectionParams: guesses count, and a key known from HTTP headers does not exempt a socket', async () => {
    const address = '127.0.0.33';
    const guessed = await newKey({ name: 'Socket guess', scopes: ['all'] });
    expect((await balanceWith(address, key)).status).toBe(200);
    await earlyInAMinute();
    const codes: number[] = [];
    for (let sent = 0; sent < ADDRESS_LIMIT; sent += 10) {
      const batch = Array.from({ length: 10 }, () =>
        connect(stack.url, address, `Bearer ${badKey()}`),
      );
      codes.push(...(await Promise.all(batch)));
    }
    expect(codes).toEqual(Array(ADDRESS_LIMIT).fill(4401));
    expect(await connect(stack.url, address, `Bearer ${badKey()}`)).toBe(4429);
    expect(await connect(stack.url, address, `Bearer ${guessed}`)).toBe(4429);
    // The key authenticated here in a header, never in connectionParams: refused there.
    expect(await connect(stack.url, address, `Bearer ${key}`)).toBe(4429);
    expect((await balanceWith(address, key)).status).toBe(200);
  });

  /** `count` requests one after another; each answer's status and RateLimit-Remaining. */
  async function remaining(count: number, send: () => Promise<HttpResponse>) {
    const seen: Array<[number, string | null]> = [];
    for (let i = 0; i < count; i += 1) {
      const response = await send();
      seen.push([response.status, response.headers.get('ratelimit-remaining')]);
    }
    return seen;
  }
  const countdown = (status: number) =>
    Array.from({ length: KEY_LIMIT }, (_, i): [number, string] => [
      status,
      String(KEY_LIMIT - 1 - i),
    ]);

  it('403 insufficient_scope counts against the key: RateLimit-Remaining falls, then 429', async () => {
    const restricted = await newKey({ name: 'Rates only', scopes: ['rates:read'] });
    await earlyInAMinute();
    const probe = () => request(stack.url, 'GET', '/v1/merchant/balance', { key: restricted });
    expect(await remaining(KEY_LIMIT, probe)).toEqual(countdown(403));
    const refused = await probe();
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('403 ip_not_allowed counts against the key: RateLimit-Remaining falls, then 429', async () => {
    const elsewhere = await newKey({
      name: 'Elsewhere',
      scopes: ['all'],
      allowed_ips: ['203.0.113.7'],
    });
    await earlyInAMinute();
    const probe = () => request(stack.url, 'GET', '/v1/merchant/balance', { key: elsewhere });
    expect(await remaining(KEY_LIMIT, probe)).toEqual(countdown(403));
    expect((await probe()).status).toBe(429);
    // GraphQL over HTTP: the same count.
    const answer = await graphql(stack.url, elsewhere, '{ merchant { id } }');
    expect(answer.status).toBe(429);
    expect(answer.body.errors?.[0].extensions?.code).toBe('RATE_LIMITED');
  });

  it('GraphQL: a document refused for scope costs its request one count, not one per field', async () => {
    const restricted = await newKey({ name: 'Rates only, GraphQL', scopes: ['rates:read'] });
    await earlyInAMinute();
    const answer = await graphql(
      stack.url,
      restricted,
      '{ a: deposits(first: 1) { totalCount } b: onramps(first: 1) { totalCount } }',
    );
    expect(answer.body.errors?.length).toBeGreaterThanOrEqual(1);
    for (const error of answer.body.errors ?? []) {
      expect(error.extensions?.code).toBe('INSUFFICIENT_SCOPE');
    }
    expect(answer.headers.get('ratelimit-remaining')).toBe(String(KEY_LIMIT - 1));
  });
});
