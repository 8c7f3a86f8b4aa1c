import { randomBytes } from 'node:crypto';
import { rawRequest, request, type HttpResponse } from './http';

/** The default `RATE_LIMIT_UNAUTHENTICATED_PER_MINUTE`. */
export const ADDRESS_LIMIT = 100;

/** A request sent from `localAddress` (any 127.0.0.0/8 address is this machine on Linux). */
export const from = (
  localAddress: string,
  baseUrl: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string } = {},
) => rawRequest(baseUrl, method, path, { ...options, localAddress });

/** Sends `count` requests, ten at a time; returns their statuses in order. */
export async function statuses(
  count: number,
  send: (index: number) => Promise<HttpResponse>,
): Promise<number[]> {
  const all: number[] = [];
  for (let sent = 0; sent < count; sent += 10) {
    const batch = await Promise.all(
      Array.from(
        { length: Math.min(10, count - sent) },
        async (_, i) => (await send(sent + i)).status,
      ),
    );
    all.push(...batch);
  }
  return all;
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The counts live in one-minute windows: start a flood early in one, so it stays inside. */
export async function earlyInAMinute(latestSecond = 40): Promise<void> {
  const second = new Date().getUTCSeconds();
  if (second > latestSecond) await sleep((61 - second) * 1000);
}

/** 429 `rate_limited` for the address, with Retry-After and a request id. */
export function expectRefused(response: HttpResponse): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({
    status: 429,
    code: 'rate_limited',
  });
  const retryAfter = Number(response.headers.get('retry-after'));
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(60);
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
}

/** A well-formed sandbox secret key nobody holds. */
export const badKey = () => `sk_test_${randomBytes(16).toString('hex')}`;

/** A new API key of the merchant whose `all` key is `key` (`body`: name, scopes, allowed_ips). */
export async function createKeyWith(
  baseUrl: string,
  key: string,
  body: Record<string, unknown>,
): Promise<string> {
  const response = await request(baseUrl, 'POST', '/v1/api_keys', { key, body });
  if (response.status !== 201) throw new Error(`${response.status}: ${response.text}`);
  return (response.body as { secret: string }).secret;
}
