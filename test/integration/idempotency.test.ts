import { randomBytes, randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { mapError } from '../../src/api/error-mapping';
import { validatorCompiler } from '../../src/api/validation';
import { canonicalJson, registerIdempotency, requestHash } from '../../src/api/idempotency';
import { DomainError, ErrorCode, errorBody } from '../../src/domain/errors';
import { IdempotencyService, sealContext } from '../../src/system/idempotency.service';
import { SecretBox } from '../../src/crypto/secret-box';
import { pruneIdempotencyKeysJob } from '../../jobs/prune-idempotency-keys.job';
import type { JobDeps } from '../../jobs/job';
import { createTestDatabase, openTestOrm } from '../support/db';
import { request } from '../support/http';
import { ageIdempotencyKey } from '../support/idempotency-keys';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const DAY_MS = 24 * 60 * 60 * 1000;

interface KeyRow {
  merchant_id: string;
  key: string;
  method: string;
  path: string;
  request_hash: string;
  state: string;
  response_status: number | null;
  response_body: unknown;
  response_sealed: string | null;
  created_at: Date;
  expires_at: Date;
}

describe('Idempotency-Key (real PostgreSQL)', () => {
  let orm: MikroORM;
  let app: FastifyInstance;
  let baseUrl: string;
  const runs = { things: 0, flaky: 0, reject: 0, unavailable: 0, graphql: 0 };
  /** While set, /v1/things holds its answer until this settles (one test needs the key in progress). */
  let thingsGate: Promise<void> | null = null;
  const box = new SecretBox(randomBytes(32));

  /** The response a row stores, opened. */
  const storedBody = (row: KeyRow): unknown =>
    JSON.parse(box.open(row.response_sealed!, sealContext(row.merchant_id, row.key)));

  function buildApp(): FastifyInstance {
    const fastify = Fastify();
    fastify.setValidatorCompiler(validatorCompiler);
    fastify.setErrorHandler((e, _req, reply) => {
      const m = mapError(e);
      reply.code(m.status).send(errorBody(m.code, m.message));
    });
    fastify.addHook('onRequest', async (request) => {
      request.em = orm.em.fork();
      if (request.headers['x-test-client-secret'] !== undefined) {
        request.principal = {
          kind: 'client_secret',
          merchantId: 'mer_test',
          onrampId: 'onr_test',
        };
      } else if (request.headers['x-test-anonymous'] === undefined) {
        const merchant = request.headers['x-test-merchant'];
        request.principal = {
          kind: 'secret_key',
          merchantId: typeof merchant === 'string' ? merchant : 'mer_test',
          keyId: 'key_test',
          scopes: ['all'],
        };
      }
    });
    registerIdempotency(fastify, { idempotency: new IdempotencyService(box) });

    fastify.post(
      '/v1/things',
      {
        schema: {
          body: {
            type: 'object',
            required: ['amount'],
            additionalProperties: false,
            properties: { amount: { type: 'string' }, meta: { type: 'object' } },
          },
        },
      },
      async (request, reply) => {
        runs.things++;
        await (thingsGate ?? sleep(100));
        reply.code(201);
        return {
          id: `thg_${randomUUID()}`,
          amount: (request.body as { amount: string }).amount,
          merchant: request.principal?.merchantId,
        };
      },
    );
    fastify.post('/v1/flaky', async (_request, reply) => {
      runs.flaky++;
      if (runs.flaky === 1) throw new Error('database exploded');
      reply.code(201);
      return { id: `flk_${randomUUID()}` };
    });
    fastify.post('/v1/reject', async () => {
      runs.reject++;
      throw new DomainError(ErrorCode.InsufficientBalance, `Attempt ${runs.reject} refused`);
    });
    fastify.post('/v1/unavailable', async () => {
      runs.unavailable++;
      throw new DomainError(ErrorCode.ServiceUnavailable, 'A dependency is unavailable');
    });
    // Shaped like the Apollo handler: a JSON string with a GraphQL content type.
    fastify.post('/graphql', async (_request, reply) => {
      runs.graphql++;
      reply.type('application/graphql-response+json; charset=utf-8');
      return JSON.stringify({ data: { createOnramp: { id: `onr_${randomUUID()}` } } });
    });
    return fastify;
  }

  /** Real HTTP (light-my-request cannot load under jest here): status, headers, JSON body. */
  async function post(
    url: string,
    options: {
      key?: string;
      body?: unknown;
      merchant?: string;
      anonymous?: boolean;
      clientSecret?: boolean;
    } = {},
  ) {
    const headers: Record<string, string> = {};
    if (options.key !== undefined) headers['idempotency-key'] = options.key;
    if (options.merchant !== undefined) headers['x-test-merchant'] = options.merchant;
    if (options.anonymous) headers['x-test-anonymous'] = '1';
    if (options.clientSecret) headers['x-test-client-secret'] = '1';
    const response = await request(baseUrl, 'POST', url, { body: options.body, headers });
    return {
      statusCode: response.status,
      headers: Object.fromEntries(response.headers.entries()) as Record<string, string | undefined>,
      json: () => response.body,
    };
  }

  async function rows(merchantId: string, key?: string): Promise<KeyRow[]> {
    return orm.em
      .fork()
      .getConnection()
      .execute<KeyRow[]>(
        `select * from idempotency_keys where merchant_id = ?${key === undefined ? '' : ' and key = ?'}`,
        key === undefined ? [merchantId] : [merchantId, key],
      );
  }

  // Keys live on the database's clock: a test moves a key's time by moving its row.
  const age = (merchantId: string, key: string, ms: number) =>
    ageIdempotencyKey(orm, merchantId, key, ms);

  /** The database's clock, which stamps the keys. */
  async function databaseNow(): Promise<number> {
    const [{ now }] = await orm.em.fork().getConnection().execute<{ now: Date }[]>('select now()');
    return new Date(now).getTime();
  }

  /** Waits (up to 10 s) until the key's first request has stored its response. */
  async function eventuallyStored(key: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (Date.now() < deadline) {
      const [row] = await rows('mer_test', key);
      if (row?.response_status !== null && row?.response_status !== undefined) return;
      await sleep(20);
    }
    throw new Error(`the response for ${key} was never stored`);
  }

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    app = buildApp();
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await orm.close();
  });

  it('runs the handler once for 20 concurrent requests, then replays the stored response', async () => {
    const before = runs.things;
    const key = `key_${randomUUID()}`;
    const body = { amount: '1000.00', meta: { b: 1, a: [1, 2] } };
    // The first request's handler is held until the other 19 are answered, so each of them
    // meets the key in progress (on a loaded machine a fixed 100 ms let the first finish before
    // the rest arrived, and they were all replays).
    let release = () => {};
    thingsGate = new Promise<void>((resolve) => (release = resolve));
    let answered = 0;
    const pending = Array.from({ length: 20 }, () =>
      post('/v1/things', { key, body }).then((r) => {
        answered += 1;
        return r;
      }),
    );
    const deadline = Date.now() + 20_000;
    while (answered < 19 && Date.now() < deadline) await sleep(10);
    release();
    const responses = await Promise.all(pending);
    thingsGate = null;
    expect(runs.things - before).toBe(1);

    const statuses = responses.map((r) => r.statusCode);
    expect(statuses.every((s) => s === 201 || s === 409)).toBe(true);
    const originals = responses.filter(
      (r) => r.statusCode === 201 && r.headers['idempotent-replayed'] === undefined,
    );
    expect(originals).toHaveLength(1);
    const original = originals[0].json();
    expect(original).toMatchObject({ id: expect.stringMatching(/^thg_/), amount: '1000.00' });
    for (const r of responses.filter((x) => x.statusCode === 201)) {
      expect(r.json()).toEqual(original);
    }
    const conflicts = responses.filter((r) => r.statusCode === 409);
    expect(conflicts.length).toBeGreaterThan(0);
    for (const r of conflicts) {
      expect(r.json()).toEqual({
        error: {
          code: 'idempotency_conflict',
          message: expect.stringMatching(/still being processed/),
        },
      });
    }

    // Same body with keys in another order: same request.
    const replay = await post('/v1/things', {
      key,
      body: { meta: { a: [1, 2], b: 1 }, amount: '1000.00' },
    });
    expect(replay.statusCode).toBe(201);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.headers['content-type']).toMatch(/^application\/json/);
    expect(replay.json()).toEqual(original);
    expect(runs.things - before).toBe(1);

    const [row] = await rows('mer_test', key);
    expect(row).toMatchObject({
      method: 'POST',
      path: '/v1/things',
      state: 'COMPLETED',
      response_status: 201,
      request_hash: requestHash('POST', '/v1/things', body),
    });
    expect(storedBody(row)).toEqual(original);
    expect(new Date(row.expires_at).getTime() - new Date(row.created_at).getTime()).toBe(DAY_MS);
    // Stamped by the database, not by the gateway's clock.
    expect(Math.abs((await databaseNow()) - new Date(row.created_at).getTime())).toBeLessThan(
      60_000,
    );
  });

  it('refuses the same key with a different body, path or query-less path with 409', async () => {
    const key = `key_${randomUUID()}`;
    const first = await post('/v1/things', { key, body: { amount: '5.00' } });
    expect(first.statusCode).toBe(201);
    const before = runs.things;

    const otherBody = await post('/v1/things', { key, body: { amount: '6.00' } });
    expect(otherBody.statusCode).toBe(409);
    expect(otherBody.json().error).toEqual({
      code: 'idempotency_conflict',
      message: expect.stringMatching(/different request/),
    });
    const otherPath = await post('/v1/flaky', { key, body: { amount: '5.00' } });
    expect(otherPath.statusCode).toBe(409);
    expect(otherPath.json().error.code).toBe('idempotency_conflict');
    expect(runs.things).toBe(before);

    // The query string is not part of the request identity.
    const withQuery = await post('/v1/things?x=1', { key, body: { amount: '5.00' } });
    expect(withQuery.statusCode).toBe(201);
    expect(withQuery.headers['idempotent-replayed']).toBe('true');
    expect(withQuery.json()).toEqual(first.json());
  });

  it('scopes keys per merchant', async () => {
    const before = runs.things;
    const key = `shared_${randomUUID()}`;
    const [a, b] = await Promise.all([
      post('/v1/things', { key, body: { amount: '1.00' }, merchant: 'mer_a' }),
      post('/v1/things', { key, body: { amount: '2.00' }, merchant: 'mer_b' }),
    ]);
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().merchant).toBe('mer_a');
    expect(b.json().merchant).toBe('mer_b');
    expect(a.json().id).not.toBe(b.json().id);
    expect(runs.things - before).toBe(2);

    const replayA = await post('/v1/things', { key, body: { amount: '1.00' }, merchant: 'mer_a' });
    expect(replayA.headers['idempotent-replayed']).toBe('true');
    expect(replayA.json()).toEqual(a.json());
  });

  it('releases the key after an unexpected error (500) so the client can retry', async () => {
    const key = `key_${randomUUID()}`;
    const failed = await post('/v1/flaky', { key, body: { n: 1 } });
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.code).toBe('internal_error');
    expect(await rows('mer_test', key)).toEqual([]);

    const retried = await post('/v1/flaky', { key, body: { n: 1 } });
    expect(retried.statusCode).toBe(201);
    expect(retried.headers['idempotent-replayed']).toBeUndefined();
    expect(runs.flaky).toBe(2);

    const replay = await post('/v1/flaky', { key, body: { n: 1 } });
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(retried.json());
    expect(runs.flaky).toBe(2);
  });

  it('releases the key after a 503 domain error', async () => {
    const key = `key_${randomUUID()}`;
    const before = runs.unavailable;
    expect((await post('/v1/unavailable', { key, body: {} })).statusCode).toBe(503);
    expect((await post('/v1/unavailable', { key, body: {} })).statusCode).toBe(503);
    expect(runs.unavailable - before).toBe(2);
    expect(await rows('mer_test', key)).toEqual([]);
  });

  it('stores and replays a 4xx domain error', async () => {
    const key = `key_${randomUUID()}`;
    const before = runs.reject;
    const first = await post('/v1/reject', { key, body: { amount: '10' } });
    expect(first.statusCode).toBe(422);
    expect(first.json().error.code).toBe('insufficient_balance');

    const replay = await post('/v1/reject', { key, body: { amount: '10' } });
    expect(replay.statusCode).toBe(422);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    expect(runs.reject - before).toBe(1);
  });

  it('applies to POST /graphql', async () => {
    const key = `key_${randomUUID()}`;
    const query = { query: 'mutation { createOnramp { id } }', variables: { b: 2, a: 1 } };
    const first = await post('/graphql', { key, body: query });
    expect(first.statusCode).toBe(200);
    const replay = await post('/graphql', {
      key,
      body: { variables: { a: 1, b: 2 }, query: query.query },
    });
    expect(replay.statusCode).toBe(200);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json()).toEqual(first.json());
    expect(runs.graphql).toBe(1);

    const other = await post('/graphql', { key, body: { ...query, variables: { a: 2 } } });
    expect(other.statusCode).toBe(409);
  });

  it('executes a key anew once its 24 h have passed', async () => {
    const key = `key_${randomUUID()}`;
    const before = runs.things;
    const first = await post('/v1/things', { key, body: { amount: '3.00' } });
    expect(first.statusCode).toBe(201);

    await age('mer_test', key, DAY_MS - 5000);
    const stillStored = await post('/v1/things', { key, body: { amount: '3.00' } });
    expect(stillStored.headers['idempotent-replayed']).toBe('true');
    expect(runs.things - before).toBe(1);

    await age('mer_test', key, 5000);
    // Expired: even another body is a new request now.
    const anew = await post('/v1/things', { key, body: { amount: '4.00' } });
    expect(anew.statusCode).toBe(201);
    expect(anew.headers['idempotent-replayed']).toBeUndefined();
    expect(anew.json().id).not.toBe(first.json().id);
    expect(runs.things - before).toBe(2);
    const [row] = await rows('mer_test', key);
    expect(storedBody(row)).toEqual(anew.json());
    expect(Math.abs((await databaseNow()) - new Date(row.created_at).getTime())).toBeLessThan(
      60_000,
    );
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['a non-ASCII character', 'clé'],
    ['an empty value', ''],
  ])('refuses a header of %s with 400 invalid_parameter', async (_label, key) => {
    const before = runs.things;
    const response = await post('/v1/things', { key, body: { amount: '1.00' } });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toEqual({
      error: {
        code: 'invalid_parameter',
        message: 'Idempotency-Key must be 1-255 printable ASCII characters',
      },
    });
    expect(runs.things).toBe(before);
  });

  it('accepts a 255-character key', async () => {
    const key = 'k'.repeat(250) + randomUUID().slice(0, 5);
    const response = await post('/v1/things', { key, body: { amount: '1.00' } });
    expect(response.statusCode).toBe(201);
    expect(await rows('mer_test', key)).toHaveLength(1);
  });

  it('stores nothing without the header, for anonymous or client-secret callers, or on a validation 400', async () => {
    const merchant = `mer_${randomUUID()}`;
    const before = runs.things;
    const a = await post('/v1/things', { body: { amount: '1.00' }, merchant });
    const b = await post('/v1/things', { body: { amount: '1.00' }, merchant });
    expect([a.statusCode, b.statusCode]).toEqual([201, 201]);
    expect(a.json().id).not.toBe(b.json().id);
    expect(runs.things - before).toBe(2);

    const key = `key_${randomUUID()}`;
    const anonymous = await post('/v1/things', { key, body: { amount: '1.00' }, anonymous: true });
    expect(anonymous.statusCode).toBe(201);
    // Schema validation runs before the hook: the 400 is not stored, the key stays free.
    const invalid = await post('/v1/things', { key, body: { amount: 1 }, merchant });
    expect(invalid.statusCode).toBe(400);
    expect(await rows(merchant)).toEqual([]);

    const graphql = { query: '{ onramp(id: "onr_test") { id } }' };
    const viaClientSecret = await post('/graphql', { key, body: graphql, clientSecret: true });
    expect(viaClientSecret.statusCode).toBe(200);
    expect(viaClientSecret.headers['idempotent-replayed']).toBeUndefined();
    expect(await rows('mer_test', key)).toEqual([]);

    const fixed = await post('/v1/things', { key, body: { amount: '1.00' }, merchant });
    expect(fixed.statusCode).toBe(201);
    expect(fixed.headers['idempotent-replayed']).toBeUndefined();
  });

  it('stores the outcome when the client disconnects mid-request; a retry replays it', async () => {
    const { port } = app.server.address() as AddressInfo;
    const key = `key_${randomUUID()}`;
    const before = runs.things;
    const payload = JSON.stringify({ amount: '7.00' });
    // The handler is held until the request below is answered, so it meets the key in progress
    // (a fixed 100 ms handler finished first on a loaded machine, and the answer was a replay).
    let release = () => {};
    thingsGate = new Promise<void>((resolve) => (release = resolve));
    await new Promise<void>((resolve) => {
      const req = httpRequest({
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/v1/things',
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
          'idempotency-key': key,
        },
      });
      req.on('error', () => undefined);
      req.end(payload);
      // Hang up once the handler holds the key.
      const hangUp = async () => {
        while ((await rows('mer_test', key)).length === 0) await sleep(5);
        req.destroy();
        resolve();
      };
      void hangUp();
    });
    // While the handler still runs, the key is held.
    const during = await post('/v1/things', { key, body: { amount: '7.00' } });
    release();
    thingsGate = null;
    expect(during.statusCode).toBe(409);
    // The abandoned request's outcome is stored once its handler ends.
    await eventuallyStored(key);
    expect(runs.things - before).toBe(1);

    const retry = await post('/v1/things', { key, body: { amount: '7.00' } });
    expect(retry.statusCode).toBe(201);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    expect(retry.json()).toMatchObject({ amount: '7.00', id: expect.stringMatching(/^thg_/) });
    expect(runs.things - before).toBe(1);
  });

  it('hashes canonical JSON (sorted keys at every depth)', () => {
    expect(canonicalJson({ b: { d: 1, c: [{ f: 1, e: 2 }] }, a: null })).toBe(
      '{"a":null,"b":{"c":[{"e":2,"f":1}],"d":1}}',
    );
    expect(requestHash('POST', '/v1/x', { a: 1, b: 2 })).toBe(
      requestHash('POST', '/v1/x', { b: 2, a: 1 }),
    );
    expect(requestHash('POST', '/v1/x', { a: 1 })).not.toBe(requestHash('POST', '/v1/y', { a: 1 }));
  });

  it('prunes keys past expires_at every 10 minutes', async () => {
    const service = new IdempotencyService(box);
    const em = orm.em.fork();
    const scope = (key: string) => ({
      merchantId: 'mer_prune',
      key,
      method: 'POST',
      path: '/v1/things',
      requestHash: 'h',
    });
    const claimed = await service.begin(em, scope('old'));
    if (claimed.kind !== 'new') throw new Error('expected a new claim');
    await em.transactional((tx) => service.complete(tx, claimed.claim, 201, '{"id":"x"}'));
    await service.begin(em, scope('young'));
    await age('mer_prune', 'old', DAY_MS);
    await age('mer_prune', 'young', DAY_MS / 2);

    const deps = {
      orm,
      services: { idempotency: service },
      log: { debug: () => undefined },
    };
    await pruneIdempotencyKeysJob.run(deps as unknown as JobDeps, undefined);
    expect((await rows('mer_prune')).map((r) => r.key)).toEqual(['young']);
    expect(pruneIdempotencyKeysJob.everyMs?.(deps as unknown as JobDeps)).toBe(10 * 60 * 1000);
  });
});
