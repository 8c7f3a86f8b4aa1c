import { connect } from 'node:net';
import { createTestDatabase } from '../support/db';
import { rawRequest, request, type HttpResponse } from '../support/http';
import { createMerchant, startStack, type Stack } from '../support/stack';

/**
 * What the HTTP server refuses before a route runs answers 4xx in the contract's error shape,
 * with a request id: malformed URL encoding, an over-long id, a body too deep, too large or of
 * the wrong type. The URLs go over a raw socket request so nothing normalises them on the way.
 */

/** GET with the path exactly as given (fetch would re-encode it). */
const rawGet = (baseUrl: string, path: string, key: string) =>
  rawRequest(baseUrl, 'GET', path, { headers: { authorization: `Bearer ${key}` } });

function expectErrorShape(response: HttpResponse, status: number, code: string): void {
  expect({ status: response.status, code: response.body?.error?.code }).toEqual({ status, code });
  expect(Object.keys(response.body)).toEqual(['error']);
  expect(typeof response.body.error.message).toBe('string');
  expect(response.headers.get('x-request-id')).toMatch(/^req_/);
}

/** `{"user": {"a": {"a": ... 1 ...}}}` or arrays, `depth` levels below the top object. */
function deepBody(depth: number, kind: 'object' | 'array'): string {
  const inner =
    kind === 'object'
      ? `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
      : `${'['.repeat(depth)}1${']'.repeat(depth)}`;
  return `{"user":${inner}}`;
}

describe('the HTTP edge: framework refusals in the error shape', () => {
  let stack: Stack;
  let key: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { runners: 0 });
    key = (await createMerchant(databaseUrl, 'Edge Co')).api_key;
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it.each([
    ['/v1/deposits/%', 400, 'invalid_parameter', '/v1/deposits/%'],
    ['/v1/onramp/%E0%A4%A', 400, 'invalid_parameter', '/v1/onramp/%E0%A4%A'],
    ['/v1/deposits/%C0%AE%C0%AE', 400, 'invalid_parameter', '/v1/deposits/%C0%AE%C0%AE'],
    ['/v1/onramp/%C0%AE%C0%AE', 400, 'invalid_parameter', '/v1/onramp/%C0%AE%C0%AE'],
    ['a 3,000-character deposit id', 404, 'not_found', `/v1/deposits/${'d'.repeat(3000)}`],
    ['a 3,000-character onramp id', 404, 'not_found', `/v1/onramp/onr_${'x'.repeat(3000)}`],
  ])('GET %s answers %i %s', async (_label, status, code, path) => {
    expectErrorShape(
      await rawGet(stack.url, path as string, key),
      status as number,
      code as string,
    );
  });

  it.each([5_000, 10_000])(
    'a JSON body nested %i deep is 400 invalid_parameter on every JSON route',
    async (depth) => {
      for (const kind of ['object', 'array'] as const) {
        const rawBody = deepBody(depth, kind);
        for (const path of ['/v1/onramp', '/v1/sandbox/deposits']) {
          const response = await request(stack.url, 'POST', path, { key, rawBody });
          expectErrorShape(response, 400, 'invalid_parameter');
          expect(response.body.error.message).toMatch(/deeper than 32/);
        }
        const graphql = await request(stack.url, 'POST', '/graphql', {
          key,
          rawBody: `{"query":"{ __typename }","variables":${deepBody(depth, kind)}}`,
        });
        expect(graphql.status).toBe(400);
        expect(graphql.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
        expect(graphql.headers.get('x-request-id')).toMatch(/^req_/);
        // Signing in reads a JSON body too, before any key.
        const signIn = await request(stack.url, 'POST', '/dashboard/api/session', {
          rawBody,
          headers: { origin: stack.url },
        });
        expectErrorShape(signIn, 400, 'invalid_parameter');
      }
    },
  );

  it('a body nested 32 deep still reaches the route (its validation answers)', async () => {
    const response = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      rawBody: deepBody(31, 'object'),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).not.toMatch(/deeper than/);
  });

  it('an unsupported content type and a too-large body answer in the error shape', async () => {
    const xml = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      rawBody: '<onramp/>',
      headers: { 'content-type': 'application/xml' },
    });
    expectErrorShape(xml, 400, 'invalid_parameter');
    const large = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      rawBody: JSON.stringify({ type: 'EPHEMERAL', padding: 'x'.repeat(70 * 1024) }),
    });
    expectErrorShape(large, 413, 'payload_too_large');
    const notJson = await request(stack.url, 'POST', '/v1/onramp', { key, rawBody: '{"type":' });
    expectErrorShape(notJson, 400, 'invalid_parameter');
  });

  it('a request Node cannot parse (headers too large, bad request line) still gets the error shape', async () => {
    const exchange = (text: string) =>
      new Promise<string>((resolve, reject) => {
        const { hostname, port } = new URL(stack.url);
        const socket = connect(Number(port), hostname, () => socket.end(text));
        const chunks: Buffer[] = [];
        socket.on('data', (chunk: Buffer) => chunks.push(chunk));
        socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        socket.on('error', reject);
      });
    const big = `x-big: ${'a'.repeat(20_000)}\r\n`;
    for (const text of [`GET /health HTTP/1.1\r\nhost: x\r\n${big}\r\n`, 'NOT A REQUEST\r\n\r\n']) {
      const answer = await exchange(text);
      const [head, body] = answer.split('\r\n\r\n');
      // invalid_parameter is 400 in the contract, whatever Node's parser objected to.
      expect(head.split('\r\n')[0]).toBe('HTTP/1.1 400 Bad Request');
      expect(head).toMatch(/\r\nx-request-id: req_/);
      expect(JSON.parse(body).error.code).toBe('invalid_parameter');
    }
    // /graphql answers in GraphQL's shape; HEAD gets no body it could not frame.
    const graphql = await exchange(`POST /graphql HTTP/1.1\r\nhost: x\r\n${big}\r\n`);
    expect(JSON.parse(graphql.split('\r\n\r\n')[1]).errors[0].extensions.code).toBe(
      'INVALID_PARAMETER',
    );
    const head = await exchange(`HEAD /health HTTP/1.1\r\nhost: x\r\n${big}\r\n`);
    expect(head).toMatch(/^HTTP\/1.1 400 [^]*content-length: 0\r\n\r\n$/);
    // A request line without a version and a method no route has: Fastify refuses it before any
    // hook runs (the HTTP fuzz found it answered without an id).
    const refusedEarly = await exchange('PRI /health\r\n\r\n');
    expect(refusedEarly).toMatch(/^HTTP\/1.1 404 [^]*\r\nx-request-id: req_/);
    expect(JSON.parse(refusedEarly.split('\r\n\r\n')[1]).error.code).toBe('not_found');
  });

  it('/metrics and /admin/graphql are not on the public port, only on the internal one', async () => {
    expect(stack.internalUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(stack.internalUrl).not.toBe(stack.url);
    expectErrorShape(await request(stack.url, 'GET', '/metrics'), 404, 'not_found');
    expectErrorShape(
      await request(stack.url, 'POST', '/admin/graphql', { body: { query: '{ treasury }' } }),
      404,
      'not_found',
    );
    const scraped = await request(stack.internalUrl, 'GET', '/metrics');
    expect(scraped.status).toBe(200);
    expect(scraped.text).toContain('# TYPE onramp_deposits gauge');
    expect(scraped.headers.get('x-request-id')).toMatch(/^req_/);
    const admin = await request(stack.internalUrl, 'POST', '/admin/graphql', {
      body: { query: '{ treasury }' },
    });
    expect(admin.status).toBe(401);
    expect(admin.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
    // The internal listener serves nothing else.
    expectErrorShape(
      await request(stack.internalUrl, 'GET', '/v1/rates', { key }),
      404,
      'not_found',
    );
  });
});
