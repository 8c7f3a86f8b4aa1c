import { systemClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { dec } from '../../src/domain/money';
import { createServices } from '../../src/container';
import { createTestDatabase, openTestOrm } from '../support/db';
import { request } from '../support/http';
import { baseEnv, createMerchant, eventually, startGateway, type Gateway } from '../support/stack';

// Log entries are whatever the gateway wrote; tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Entry = Record<string, any>;

const EMAIL = 'someone@example.com';
const GENERATED_ID = /^req_[0-9A-HJKMNP-TV-Z]{26}$/;

/**
 * The real gateway process (dist/src/gateway.js: createLogger, buildGateway, every route and
 * hook) against a real database; its stdout is what operators read. A process rather than
 * buildGateway in this jest worker: the gateway's `typebox` is ESM-only, which jest's module
 * loader cannot require (no test builds the gateway in-process for the same reason).
 */
describe('request logs of a real gateway (real PostgreSQL)', () => {
  let gateway: Gateway;
  let apiKey: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    ({ api_key: apiKey } = await createMerchant(databaseUrl, 'Log Co'));
    // A current rate (the job runner's work), so creating an onramp gets as far as the insert.
    const orm = await openTestOrm(databaseUrl);
    try {
      await createServices(loadConfig({}), systemClock).rates.publish(orm.em.fork(), {
        name: 'fixed',
        marketRates: async () => ({ USD: dec(1500), USDC: dec(1500), USDT: dec(1501) }),
      });
    } finally {
      await orm.close();
    }
    gateway = await startGateway(baseEnv(databaseUrl, { LOG_LEVEL: 'info' }));
  });
  afterAll(() => gateway?.stop());

  /** Every stdout line is one JSON object (stderr stays empty); those of one request. */
  function entriesOf(reqId: string): Entry[] {
    return gateway.logs
      .map((line) => JSON.parse(line) as Entry)
      .filter((entry) => entry.reqId === reqId);
  }

  /** Waits for Fastify's "request completed" line (written after the response is sent). */
  function completed(reqId: string): Promise<Entry[]> {
    return eventually(async () => {
      const entries = entriesOf(reqId);
      return entries.some((entry) => entry.msg === 'request completed') ? entries : undefined;
    });
  }

  function expectNoSecrets() {
    const text = gateway.logs.join('\n');
    expect(apiKey).toMatch(/^sk_test_/);
    expect(text).not.toContain(apiKey);
    expect(text).not.toContain(apiKey.slice('sk_test_'.length));
    expect(text).not.toContain(EMAIL);
  }

  it('logs a refused POST /v1/onramp as JSON lines whose reqId is the X-Request-Id answered', async () => {
    const response = await request(gateway.url, 'POST', '/v1/onramp', {
      key: apiKey,
      body: {
        type: 'PERMANENT',
        user: { email: EMAIL },
        user_email: EMAIL,
        api_key: apiKey,
        settlement: { mode: 'MERCHANT_BALANCE' },
      },
    });
    expect(response.status).toBe(400);
    const reqId = response.headers.get('x-request-id')!;
    expect(reqId).toMatch(GENERATED_ID);
    const entries = await completed(reqId);
    // One line per request, with what it was and how it ended.
    expect(entries.map((entry) => entry.msg)).toEqual(['request completed']);
    expect(entries[0]).toMatchObject({
      name: 'gateway',
      level: 30,
      req: { method: 'POST', url: '/v1/onramp' },
      res: { statusCode: 400 },
    });
    expect(typeof entries[0].responseTime).toBe('number');
    expectNoSecrets();
  });

  it('keeps a well-formed incoming X-Request-Id and replaces a malformed one', async () => {
    const kept = await request(gateway.url, 'GET', '/v1/onramps', {
      key: apiKey,
      headers: { 'x-request-id': 'client-trace.42:a_b-c' },
    });
    expect(kept.status).toBe(200);
    expect(kept.headers.get('x-request-id')).toBe('client-trace.42:a_b-c');
    expect(await completed('client-trace.42:a_b-c')).toHaveLength(1);

    const replaced = await request(gateway.url, 'GET', '/v1/onramps', {
      key: apiKey,
      headers: { 'x-request-id': `${EMAIL} <script>` },
    });
    const reqId = replaced.headers.get('x-request-id')!;
    expect(reqId).toMatch(GENERATED_ID);
    expect(await completed(reqId)).toHaveLength(1);
    expectNoSecrets();
  });

  it('refuses NUL characters up front (PostgreSQL cannot store them) and logs no e-mail', async () => {
    // A NUL used to pass the e-mail check and fail in PostgreSQL as a 500 whose driver error
    // quoted the insert, e-mail included.
    const response = await request(gateway.url, 'POST', '/v1/onramp', {
      key: apiKey,
      headers: { 'x-request-id': 'nul-email-1' },
      body: {
        type: 'PERMANENT',
        user: { email: `${EMAIL}\u0000` },
        settlement: { mode: 'MERCHANT_BALANCE' },
      },
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: {
        code: 'invalid_parameter',
        message: 'Invalid parameter user.email: must not contain NUL characters',
      },
    });
    const entries = await completed('nul-email-1');
    expect(entries.find((entry) => entry.msg === 'unexpected error')).toBeUndefined();
    // In a path parameter or the query string too.
    const inPath = await request(gateway.url, 'GET', '/v1/deposits/dep_%00', { key: apiKey });
    expect(inPath.status).toBe(400);
    expect(inPath.body.error.code).toBe('invalid_parameter');
    const inQuery = await request(gateway.url, 'GET', '/v1/deposits?updated_since=%00', {
      key: apiKey,
    });
    expect(inQuery.status).toBe(400);
    expectNoSecrets();
  });
});
