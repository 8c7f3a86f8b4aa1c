import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { mapError } from '../../src/api/error-mapping';
import { registerIdempotency, requestHash } from '../../src/api/idempotency';
import { errorBody } from '../../src/domain/errors';
import { IdempotencyService, sealContext } from '../../src/system/idempotency.service';
import { SecretBox, SecretDecryptError } from '../../src/crypto/secret-box';
import { createTestDatabase, openTestOrm } from '../support/db';
import { request } from '../support/http';
import { ageIdempotencyKey } from '../support/idempotency-keys';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE_MS = 60_000;
const MERCHANT = 'mer_lease';

interface KeyRow {
  key: string;
  state: string;
  response_body: unknown;
  response_sealed: string | null;
}

/**
 * Idempotency keys whose first request died (IN_PROGRESS past the lease) and stored responses
 * sealed at rest, against real PostgreSQL and real HTTP.
 */
describe('Idempotency-Key lease and sealed responses', () => {
  let orm: MikroORM;
  let app: FastifyInstance;
  let baseUrl: string;
  const box = new SecretBox(randomBytes(32));
  const service = new IdempotencyService(box, { leaseMs: LEASE_MS, heartbeatMs: 100 });
  let runs = 0;
  /** Resolves the slow route's pending request. */
  let releaseSlow: () => void = () => undefined;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    app = Fastify();
    app.setErrorHandler((e, _req, reply) => {
      const m = mapError(e);
      reply.code(m.status).send(errorBody(m.code, m.message));
    });
    app.addHook('onRequest', async (req) => {
      req.em = orm.em.fork();
      req.principal = {
        kind: 'secret_key',
        merchantId: MERCHANT,
        keyId: 'key_test',
        scopes: ['all'],
      };
    });
    registerIdempotency(app, { idempotency: service });
    app.post('/v1/things', async (_req, reply) => {
      runs++;
      await sleep(150);
      reply.code(201);
      // Key order on purpose not alphabetical: a replay must give these very bytes.
      return {
        zeta: 1,
        id: `thg_${randomUUID()}`,
        client_secret: `oc_${randomBytes(16).toString('hex')}`,
        webhook: { secret: `whsec_${randomBytes(32).toString('base64')}` },
        alpha: 'ü',
      };
    });
    app.post('/v1/slow', async (_req, reply) => {
      runs++;
      await new Promise<void>((resolve) => (releaseSlow = resolve));
      reply.code(201);
      return { id: `slw_${randomUUID()}` };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await orm.close();
  });

  const post = (key: string) =>
    request(baseUrl, 'POST', '/v1/things', { body: {}, headers: { 'idempotency-key': key } });

  async function row(key: string): Promise<KeyRow> {
    const [found] = await orm.em
      .fork()
      .getConnection()
      .execute<KeyRow[]>('select * from idempotency_keys where merchant_id = ? and key = ?', [
        MERCHANT,
        key,
      ]);
    return found;
  }

  // Keys live on the database's clock: a test moves a key's time by moving its row.
  const age = (key: string, ms: number) => ageIdempotencyKey(orm, MERCHANT, key, ms);

  /** A claim whose process died: taken, never completed nor released. */
  async function deadClaim(key: string) {
    const outcome = await service.begin(orm.em.fork(), {
      merchantId: MERCHANT,
      key,
      method: 'POST',
      path: '/v1/things',
      requestHash: requestHash('POST', '/v1/things', {}),
    });
    if (outcome.kind !== 'new') throw new Error('expected a new claim');
    return outcome.claim;
  }

  it('answers 409 while the lease runs, then runs a retry anew', async () => {
    const key = `key_${randomUUID()}`;
    await deadClaim(key);
    const before = runs;

    await age(key, LEASE_MS - 5000);
    const during = await post(key);
    expect(during.status).toBe(409);
    expect(during.body.error.code).toBe('idempotency_conflict');
    expect(runs).toBe(before);

    await age(key, 5000);
    const after = await post(key);
    expect(after.status).toBe(201);
    expect(after.headers.get('idempotent-replayed')).toBeNull();
    expect(runs).toBe(before + 1);
    expect((await row(key)).state).toBe('COMPLETED');

    const replay = await post(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(after.text);
    expect(runs).toBe(before + 1);
  });

  it('keeps the key of a request still running past the lease: it renews its claim', async () => {
    const key = `key_${randomUUID()}`;
    const slow = (k: string) =>
      request(baseUrl, 'POST', '/v1/slow', { body: {}, headers: { 'idempotency-key': k } });
    const before = runs;
    const first = slow(key);
    while (runs === before) await sleep(10);
    // Far past the lease; the running request's heartbeats (every 100 ms here) renew it.
    await age(key, LEASE_MS * 3);
    await sleep(400);
    const retry = await slow(key);
    expect(retry.status).toBe(409);
    expect(runs).toBe(before + 1);

    releaseSlow();
    const done = await first;
    expect(done.status).toBe(201);
    const replay = await slow(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(done.text);
    expect(runs).toBe(before + 1);
  });

  it('lets exactly one of several racing retries take a dead key over', async () => {
    const key = `key_${randomUUID()}`;
    await deadClaim(key);
    await age(key, LEASE_MS + 1);
    const before = runs;
    const responses = await Promise.all(Array.from({ length: 8 }, () => post(key)));
    expect(runs - before).toBe(1);
    const fresh = responses.filter(
      (r) => r.status === 201 && r.headers.get('idempotent-replayed') === null,
    );
    expect(fresh).toHaveLength(1);
    for (const r of responses) expect([201, 409]).toContain(r.status);
  });

  it('ignores the outcome of a claim that was taken over (the zombie cannot overwrite)', async () => {
    const key = `key_${randomUUID()}`;
    const zombie = await deadClaim(key);
    await age(key, LEASE_MS + 1);
    const retry = await post(key);
    expect(retry.status).toBe(201);

    const stored = await orm.em
      .fork()
      .transactional((tx) => service.complete(tx, zombie, 500, '{"zombie":true}'));
    expect(stored).toBe(false);
    await service.abandon(orm.em.fork(), zombie);
    const replay = await post(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(retry.text);
  });

  it('stores responses sealed: no client or webhook secret in the row, replay byte-identical', async () => {
    const key = `key_${randomUUID()}`;
    const first = await post(key);
    expect(first.status).toBe(201);
    const stored = await row(key);
    const columns = JSON.stringify(stored);
    expect(columns).not.toContain(first.body.client_secret);
    expect(columns).not.toContain(first.body.webhook.secret);
    expect(columns).not.toMatch(/oc_|whsec_/);
    expect(stored.response_sealed).toMatch(new RegExp(`^enc:v1:${box.currentKeyId}:`));
    expect(box.open(stored.response_sealed!, sealContext(MERCHANT, key))).toBe(first.text);

    const replay = await post(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('content-type')).toMatch(/^application\/json/);
    expect(replay.text).toBe(first.text);
  });

  it('fails loudly, not silently, when the stored response was sealed under another key', async () => {
    const key = `key_${randomUUID()}`;
    expect((await post(key)).status).toBe(201);
    const otherKey = new IdempotencyService(new SecretBox(randomBytes(32)), {
      leaseMs: LEASE_MS,
    });
    await expect(
      otherKey.begin(orm.em.fork(), {
        merchantId: MERCHANT,
        key,
        method: 'POST',
        path: '/v1/things',
        requestHash: requestHash('POST', '/v1/things', {}),
      }),
    ).rejects.toBeInstanceOf(SecretDecryptError);
  });
});
