import WebSocket from 'ws';
import { createTestDatabase } from '../support/db';
import { seededRandom, testSeed } from '../support/seeded-random';
import { createMerchant, startStack, type Stack } from '../support/stack';
import {
  ADDRESS_LIMIT,
  badKey,
  earlyInAMinute,
  expectRefused,
  from,
  statuses,
  createKeyWith,
} from '../support/address-limit';

/**
 * The client address behind a proxy that appends to X-Forwarded-For (TRUST_PROXY=true: one
 * trusted hop), and the per-address limit's buckets: IPv6 per /64, IPv4-mapped IPv6 as its IPv4
 * address. The test plays the proxy: it connects from loopback and sends the header as the
 * proxy would pass it on, the client's own entries first and the proxy's appended one last.
 */

const seed = testSeed();
const random = seededRandom(seed);
const hex = () => random.int(0, 0xffff).toString(16);
const octet = () => random.int(1, 254);

describe(`the client address behind an appending proxy (TRUST_PROXY=true; SEED=${seed})`, () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      runners: 0,
      env: { TRUST_PROXY: 'true', RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '' },
    });
    key = (await createMerchant(databaseUrl, 'Proxied Co')).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  const newKey = (body: Record<string, unknown>) => createKeyWith(stack.url, key, body);
  /** Through "the proxy": `forwarded` as it arrives, from loopback. */
  const balance = (k: string, forwarded: string) =>
    from('127.0.0.1', stack.url, 'GET', '/v1/merchant/balance', {
      headers: { authorization: `Bearer ${k}`, 'x-forwarded-for': forwarded },
    });

  it("allowed_ips sees the address the proxy appended, not the client's own X-Forwarded-For", async () => {
    const held = await newKey({ name: 'Held', scopes: ['all'], allowed_ips: ['203.0.113.7'] });
    await earlyInAMinute();
    // The client wrote the allowed address; the proxy appended where it really came from.
    const spoofed = await balance(held, '203.0.113.7, 198.51.100.9');
    expect(spoofed.status).toBe(403);
    expect(spoofed.body.error.code).toBe('ip_not_allowed');
    // From the allowed address, whatever the client wrote before it.
    expect((await balance(held, '198.51.100.9, 203.0.113.7')).status).toBe(200);
    expect((await balance(held, '203.0.113.7')).status).toBe(200);
    // The websocket's upgrade follows the same rule: 4403.
    const code = await new Promise<number>((resolve, reject) => {
      const socket = new WebSocket(
        `${stack.url.replace(/^http/, 'ws')}/graphql`,
        'graphql-transport-ws',
        { headers: { 'x-forwarded-for': '203.0.113.7, 198.51.100.9' } },
      );
      socket.on('open', () =>
        socket.send(
          JSON.stringify({ type: 'connection_init', payload: { authorization: `Bearer ${held}` } }),
        ),
      );
      socket.on('message', () => socket.close(1000));
      socket.on('close', resolve);
      socket.on('error', reject);
    });
    expect(code).toBe(4403);
    // Each of the four answers counted against the key, the two refusals (403, 4403) too.
    const after = await balance(held, '203.0.113.7');
    const limit = Number(after.headers.get('ratelimit-limit'));
    expect(after.headers.get('ratelimit-remaining')).toBe(String(limit - 5));
  });

  it('the limit counts the appended address: a new leftmost entry each time is one bucket', async () => {
    await earlyInAMinute();
    const spoofing = () =>
      balance(badKey(), `${octet()}.${octet()}.${octet()}.${octet()}, 198.51.100.10`);
    expect(await statuses(ADDRESS_LIMIT, spoofing)).toEqual(Array(ADDRESS_LIMIT).fill(401));
    expectRefused(await spoofing());
    // Another client behind the same proxy is not refused.
    expect((await balance(badKey(), '198.51.100.11')).status).toBe(401);
  });

  it('IPv6 clients are counted per /64: every address of one /64 shares a count', async () => {
    const inPrefix = () => `2001:db8:aa:bb:${hex()}:${hex()}:${hex()}:${hex()}`;
    await earlyInAMinute();
    expect(await statuses(ADDRESS_LIMIT, () => balance(badKey(), inPrefix()))).toEqual(
      Array(ADDRESS_LIMIT).fill(401),
    );
    expectRefused(await balance(badKey(), inPrefix()));
    // Written another way, still that /64; a right key it never used is refused too.
    expectRefused(await balance(badKey(), '2001:DB8:AA:BB::7'));
    expectRefused(await balance(key, '2001:0db8:00aa:00bb:0:0:0:1'));
    // The next /64 has a count of its own.
    expect((await balance(badKey(), '2001:db8:aa:bc::1')).status).toBe(401);
  });

  it('an IPv4-mapped IPv6 address is counted as its IPv4 address', async () => {
    await earlyInAMinute();
    expect(await statuses(ADDRESS_LIMIT, () => balance(badKey(), '198.51.100.77'))).toEqual(
      Array(ADDRESS_LIMIT).fill(401),
    );
    expectRefused(await balance(badKey(), '::ffff:198.51.100.77'));
  });

  it('a dashboard sign-in refused for its address (403) counts against the key', async () => {
    const held = await newKey({
      name: 'Held sign-in',
      scopes: ['all'],
      allowed_ips: ['203.0.113.8'],
    });
    await earlyInAMinute();
    const signIn = await from('127.0.0.1', stack.url, 'POST', '/dashboard/api/session', {
      headers: { origin: stack.url, 'x-forwarded-for': '198.51.100.12' },
      body: JSON.stringify({ api_key: held }),
    });
    expect(signIn.status).toBe(403);
    expect(signIn.body.error.code).toBe('ip_not_allowed');
    const used = await balance(held, '203.0.113.8');
    expect(used.status).toBe(200);
    const limit = Number(used.headers.get('ratelimit-limit'));
    expect(used.headers.get('ratelimit-remaining')).toBe(String(limit - 2));
  });
});
