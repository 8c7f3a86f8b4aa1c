import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOnrampClient } from '../../clients/typescript/src';

/** What the server saw of one request. */
interface Seen {
  method: string;
  url: string;
  idempotencyKey?: string;
  body: string;
}

/**
 * A real HTTP server whose nth request (1-based) is answered by `script(n)`: 'reset' destroys
 * the connection without an answer (what a crashed gateway or a dropped link looks like), or a
 * status with headers and a JSON body.
 */
type Answer = 'reset' | { status: number; headers?: Record<string, string>; body?: unknown };

async function serve(
  script: (n: number) => Answer,
): Promise<{ url: string; seen: Seen[]; server: Server }> {
  const seen: Seen[] = [];
  const server = createServer((request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method!,
        url: request.url!,
        idempotencyKey: request.headers['idempotency-key'] as string | undefined,
        body: Buffer.concat(chunks).toString(),
      });
      const answer = script(seen.length);
      if (answer === 'reset') return void request.socket.destroy();
      response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
      response.end(JSON.stringify(answer.body ?? {}));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen, server };
}

const ONRAMP_BODY = {
  type: 'THROWAWAY' as const,
  user: { email: 'ada@example.com' },
  rate_id: 'rate_1',
  settlement: { mode: 'MERCHANT_BALANCE' as const },
};
const ERROR = (code: string) => ({ error: { code, message: code } });

describe('the typed client retries', () => {
  const servers: Server[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r))));
  });
  async function client(script: (n: number) => Answer, retry?: object | false) {
    const { url, seen, server } = await serve(script);
    servers.push(server);
    const onramp = createOnrampClient({
      baseUrl: url,
      secretKey: 'sk_test_x',
      retry: retry ?? { baseDelayMs: 10 },
    });
    return { onramp, seen };
  }

  it('sends a POST with no answer again, with the same Idempotency-Key and body', async () => {
    const { onramp, seen } = await client((n) =>
      n === 1 ? 'reset' : { status: 201, body: { onramp_id: 'onr_1' } },
    );
    const { data, response } = await onramp.POST('/v1/onramp', {
      body: ONRAMP_BODY,
      idempotencyKey: 'order-7',
    });
    expect(response.status).toBe(201);
    expect(data).toEqual({ onramp_id: 'onr_1' });
    expect(seen.map((s) => [s.method, s.idempotencyKey])).toEqual([
      ['POST', 'order-7'],
      ['POST', 'order-7'],
    ]);
    expect(JSON.parse(seen[1].body)).toEqual(ONRAMP_BODY);
    expect(seen[1].body).toBe(seen[0].body);
  });

  it('gives a POST without idempotencyKey a key of its own, the same on its retry, fresh per call', async () => {
    const { onramp, seen } = await client((n) => (n === 1 ? 'reset' : { status: 201 }));
    await onramp.POST('/v1/onramp', { body: ONRAMP_BODY });
    await onramp.POST('/v1/onramp', { body: ONRAMP_BODY });
    const keys = seen.map((s) => s.idempotencyKey);
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(/^client-[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).not.toBe(keys[0]);
  });

  it('gives up after 3 tries in all, with the network error', async () => {
    const { onramp, seen } = await client(() => 'reset');
    await expect(onramp.GET('/v1/merchant/balance')).rejects.toThrow();
    expect(seen).toHaveLength(3);
  });

  it('retries DELETE but never PATCH when no answer came', async () => {
    const { onramp, seen } = await client((n) => (n === 1 || n === 3 ? 'reset' : { status: 200 }));
    const deleted = await onramp.DELETE('/v1/api_keys/{id}', { params: { path: { id: 'key_1' } } });
    expect(deleted.response.status).toBe(200);
    await expect(
      onramp.PATCH('/v1/merchant/settings', { body: { require_address_book: true } }),
    ).rejects.toThrow();
    expect(seen.map((s) => s.method)).toEqual(['DELETE', 'DELETE', 'PATCH']);
  });

  it('returns an HTTP answer as it is: a 500 or a 409 is not sent again', async () => {
    const { onramp, seen } = await client((n) =>
      n === 1
        ? { status: 500, body: ERROR('internal_error') }
        : { status: 409, body: ERROR('conflict') },
    );
    const failed = await onramp.POST('/v1/onramp', { body: ONRAMP_BODY, idempotencyKey: 'k' });
    expect(failed.response.status).toBe(500);
    expect(failed.error).toEqual(ERROR('internal_error'));
    const conflict = await onramp.GET('/v1/merchant/balance');
    expect(conflict.response.status).toBe(409);
    expect(seen).toHaveLength(2);
  });

  it('waits out a 429 or 503 with a short Retry-After, and returns one with a long one', async () => {
    const { onramp, seen } = await client((n) =>
      n === 1
        ? { status: 429, headers: { 'retry-after': '0' }, body: ERROR('rate_limited') }
        : n === 2
          ? { status: 200, body: { usd_available: '1.00' } }
          : { status: 503, headers: { 'retry-after': '60' }, body: ERROR('rate_unavailable') },
    );
    const balance = await onramp.GET('/v1/merchant/balance');
    expect(balance.data).toEqual({ usd_available: '1.00' });
    const later = await onramp.GET('/v1/rates', { params: { query: { from: 'NGN' } } });
    expect(later.response.status).toBe(503);
    expect(seen).toHaveLength(3);
  });

  it('sends once with retry: false', async () => {
    const { onramp, seen } = await client(() => 'reset', false);
    await expect(onramp.POST('/v1/onramp', { body: ONRAMP_BODY })).rejects.toThrow();
    expect(seen).toHaveLength(1);
    expect(seen[0].idempotencyKey).toBeUndefined();
  });
});
