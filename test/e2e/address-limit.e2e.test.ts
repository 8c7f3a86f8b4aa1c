import { createHmac, randomBytes } from 'node:crypto';
import WebSocket from 'ws';
import { createTestDatabase } from '../support/db';
import { rawRequest, type HttpResponse } from '../support/http';
import { sql } from '../support/sql';
import { createMerchant, startStack, type Stack } from '../support/stack';

/**
 * The per-address limit on unauthenticated work, at its default (100 per minute): failed
 * authentications of every kind count against the client address, the 101st within a minute
 * is 429 with Retry-After, and a key that works keeps working from that address. Each case
 * sends from its own loopback address (127.0.0.x), so each has its own count.
 */

const BANK_SECRET = `bank_${randomBytes(16).toString('hex')}`;
const LIMIT = 100;

/** A request sent from `localAddress`. */
const from = (
  localAddress: string,
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
) => rawRequest(baseUrl, method, path, { ...options, localAddress });

/** Sends `count` requests, ten at a time; returns their statuses. */
async function statuses(count: number, send: () => Promise<HttpResponse>): Promise<number[]> {
  const all: number[] = [];
  for (let sent = 0; sent < count; sent += 10) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(10, count - sent) }, async () => (await send()).status),
    );
    all.push(...batch);
  }
  return all;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The counts live in one-minute windows: start a flood early in one, so it stays inside. */
async function earlyInAMinute(latestSecond = 40): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > latestSecond) await sleep((61 - second) * 1000);
}

function expectRefused(response: HttpResponse): void {
  expect(response.status).toBe(429);
  expect(response.body.error.code).toBe('rate_limited');
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
}

const badKey = () => `sk_test_${randomBytes(16).toString('hex')}`;

describe('the per-address limit on unauthenticated requests (default 100 per minute)', () => {
  let stack: Stack;
  let key: string;
  let databaseUrl: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      runners: 0,
      // Empty is unset: the default limit, not the raised one test/support/stack.ts sets.
      env: { BANK_WEBHOOK_SECRET: BANK_SECRET, RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE: '' },
    });
    key = (await createMerchant(databaseUrl, 'Limited Co')).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('101 failed authentications: 429 with Retry-After; a working key from there still works', async () => {
    const address = '127.0.0.2';
    const withKey = (k: string) =>
      from(address, stack.url, 'GET', '/v1/merchant/balance', {
        headers: { authorization: `Bearer ${k}` },
      });
    expect((await withKey(key)).status).toBe(200);
    await earlyInAMinute();
    expect(await statuses(LIMIT, () => withKey(badKey()))).toEqual(Array(LIMIT).fill(401));
    expectRefused(await withKey(badKey()));
    // Refused from now on, with no key or a malformed one too, on every route but /health.
    expectRefused(await withKey(badKey()));
    expectRefused(await from(address, stack.url, 'GET', '/v1/rates?from=NGN'));
    expect((await from(address, stack.url, 'GET', '/health')).status).toBe(200);
    // The merchant's key is not counted against the address, and still answers.
    expect((await withKey(key)).status).toBe(200);
    // Another address is not affected.
    expect((await from('127.0.0.1', stack.url, 'GET', '/v1/merchant/balance')).status).toBe(401);
  });

  it('failed websocket authentications count against the address too, and close 4429 past it', async () => {
    const address = '127.0.0.9';
    const connect = (authorization: string) =>
      new Promise<number>((resolve, reject) => {
        const socket = new WebSocket(
          `${stack.url.replace(/^http/, 'ws')}/graphql`,
          'graphql-transport-ws',
          { localAddress: address },
        );
        socket.on('open', () =>
          socket.send(JSON.stringify({ type: 'connection_init', payload: { authorization } })),
        );
        socket.on('message', () => socket.close(1000));
        socket.on('close', (code) => resolve(code));
        socket.on('error', reject);
      });
    expect(await connect(`Bearer ${key}`)).toBe(1000); // acknowledged, then closed by us
    await earlyInAMinute();
    const codes: number[] = [];
    for (let sent = 0; sent < LIMIT; sent += 10) {
      codes.push(
        ...(await Promise.all(Array.from({ length: 10 }, () => connect(`Bearer ${badKey()}`)))),
      );
    }
    expect(codes).toEqual(Array(LIMIT).fill(4401));
    expect(await connect(`Bearer ${badKey()}`)).toBe(4429);
    expect(await connect(`Bearer ${badKey()}`)).toBe(4429);
    // One count for both transports: HTTP from there is refused as well.
    expectRefused(await from(address, stack.url, 'GET', '/v1/rates?from=NGN'));
    // The merchant's key authenticated from there before: it still connects.
    expect(await connect(`Bearer ${key}`)).toBe(1000);
  });

  it('the dashboard sign-in is limited too', async () => {
    const address = '127.0.0.3';
    const signIn = () =>
      from(address, stack.url, 'POST', '/dashboard/api/session', {
        headers: { origin: stack.url },
        body: JSON.stringify({ api_key: badKey() }),
      });
    await earlyInAMinute();
    expect(await statuses(LIMIT, signIn)).toEqual(Array(LIMIT).fill(401));
    expectRefused(await signIn());
  });

  it('bank notifications with bad signatures are limited too', async () => {
    const address = '127.0.0.4';
    const body = JSON.stringify({ event: 'transfer.reversed', data: { reference: 'BNK1' } });
    const timestamp = String(Math.floor(Date.now() / 1000));
    const notify = (secret: string) => {
      const hex = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
      return from(address, stack.url, 'POST', '/v1/bank/notifications', {
        headers: { 'x-bank-timestamp': timestamp, 'x-bank-signature': `v1=${hex}` },
        body,
      });
    };
    // Correctly signed notifications never count (an unknown reference is a 404).
    expect(await statuses(5, () => notify(BANK_SECRET))).toEqual(Array(5).fill(404));
    await earlyInAMinute();
    expect(await statuses(LIMIT, () => notify('not-the-secret'))).toEqual(Array(LIMIT).fill(401));
    expectRefused(await notify('not-the-secret'));
  });

  it('/admin/graphql on the internal listener limits failed operator tokens', async () => {
    const address = '127.0.0.5';
    const admin = () =>
      from(address, stack.internalUrl, 'POST', '/admin/graphql', {
        headers: { authorization: `Bearer op_${randomBytes(16).toString('hex')}` },
        body: JSON.stringify({ query: '{ ledgerCheck { ok } }' }),
      });
    await earlyInAMinute();
    expect(await statuses(LIMIT, admin)).toEqual(Array(LIMIT).fill(401));
    const refused = await admin();
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0].extensions.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  });

  it('a refused address costs no key lookup: a flood of bad keys stops reaching the database', async () => {
    // Reads of api_keys, from PostgreSQL's statistics. A backend reports them at the end of a
    // transaction at most once a second, or after 10 s idle: hence the waits.
    const keyLookups = async () => {
      const [row] = await sql<{ scans: string }>(
        databaseUrl,
        `select coalesce(seq_scan, 0) + coalesce(idx_scan, 0) as scans
           from pg_stat_user_tables where relname = 'api_keys'`,
      );
      return Number(row.scans);
    };
    const withBadKey = (address: string) => () =>
      from(address, stack.url, 'GET', '/v1/merchant/balance', {
        headers: { authorization: `Bearer ${badKey()}` },
      });
    await earlyInAMinute(20);
    expect(await statuses(LIMIT, withBadKey('127.0.0.6'))).toEqual(Array(LIMIT).fill(401));
    expectRefused(await withBadKey('127.0.0.6')());
    await sleep(11_000);
    const before = await keyLookups();

    expect(await statuses(50, withBadKey('127.0.0.6'))).toEqual(Array(50).fill(429));
    // The measure works: five bad keys from an address not refused are five lookups.
    expect(await statuses(5, withBadKey('127.0.0.7'))).toEqual(Array(5).fill(401));
    await sleep(11_000);
    const lookups = (await keyLookups()) - before;
    expect(lookups).toBeGreaterThanOrEqual(5);
    expect(lookups).toBeLessThan(5 + 50);
  }, 120_000);
});
