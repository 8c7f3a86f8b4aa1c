import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { mapError } from '../../src/api/error-mapping';
import { registerIdempotency } from '../../src/api/idempotency';
import { DomainError, ErrorCode, errorBody } from '../../src/domain/errors';
import { executeInTransaction } from '../../src/db/locks';
import { IdempotencyService } from '../../src/system/idempotency.service';
import { SecretBox } from '../../src/crypto/secret-box';
import { createTestDatabase, openTestOrm } from '../support/db';
import { request } from '../support/http';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const LEASE_MS = 60_000;
const MERCHANT = 'mer_tx';

/**
 * A request with an `Idempotency-Key` is one transaction: its effects (made the way services
 * make them, `em.fork().transactional`, and plain `getConnection().execute`) commit together
 * with its stored answer, or not at all (issue 32, finding 4). Real PostgreSQL, real HTTP.
 */
describe('Idempotency-Key: the effect and the stored answer in one transaction', () => {
  let orm: MikroORM;
  let app: FastifyInstance;
  let baseUrl: string;
  // Heartbeats every 10 min: this gateway never renews during a test, as a stalled one.
  const service = new IdempotencyService(new SecretBox(randomBytes(32)), {
    leaseMs: LEASE_MS,
    heartbeatMs: 600_000,
  });
  /** Requests sent with `x-test-hold` wait here after their effect until released. */
  let held: { entered: boolean; release: () => void; gate: Promise<void> } | null = null;

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    const connection = orm.em.fork().getConnection();
    await connection.execute('create table test_effects (id text primary key, key text)');
    // An effect whose id starts with `fail` makes its commit fail (a deferred check).
    await connection.execute(`create function test_effects_fail() returns trigger language plpgsql
      as $$ begin raise exception 'refused at commit'; end $$`);
    await connection.execute(`create constraint trigger test_effects_fail after insert on test_effects
      deferrable initially deferred for each row when (new.id like 'fail%')
      execute function test_effects_fail()`);

    app = Fastify();
    app.setErrorHandler((e, _req, reply) => {
      const m = mapError(e);
      reply.code(m.status).send(errorBody(m.code, m.message));
    });
    app.addHook('onRequest', async (req) => {
      req.em = orm.em.fork();
      req.principal = { kind: 'secret_key', merchantId: MERCHANT, keyId: 'k', scopes: ['all'] };
    });
    registerIdempotency(app, { idempotency: service });
    app.post('/v1/effects', async (req, reply) => {
      const { prefix, then } = req.body as { prefix?: string; then?: string };
      const id = `${prefix ?? 'eff'}_${randomUUID()}`;
      const key = String(req.headers['idempotency-key']);
      // As a service writes: a fork and its own transaction.
      await req.em
        .fork()
        .transactional((tx) =>
          executeInTransaction(tx, 'insert into test_effects (id, key) values (?, ?)', [id, key]),
        );
      // As a service reads afterwards: the pool's `execute` (here, the request's transaction).
      const seen = await req.em
        .getConnection()
        .execute<{ n: number }[]>('select count(*)::int as n from test_effects where id = ?', [id]);
      if (req.headers['x-test-hold'] !== undefined && held) {
        held.entered = true;
        await held.gate;
      }
      if (then === 'crash') throw new Error('the handler failed after its effect');
      if (then === 'refuse') {
        throw new DomainError(ErrorCode.InsufficientBalance, 'refused after an effect');
      }
      reply.code(201);
      return { id, seen: seen[0].n };
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await orm.close();
  });

  const post = (key: string, body: Record<string, unknown> = {}, hold = false) =>
    request(baseUrl, 'POST', '/v1/effects', {
      body,
      headers: { 'idempotency-key': key, ...(hold ? { 'x-test-hold': '1' } : {}) },
    });

  const effects = async (key: string) =>
    (
      await orm.em
        .fork()
        .getConnection()
        .execute<{ id: string }[]>('select id from test_effects where key = ? order by id', [key])
    ).map((r) => r.id);

  const keyRow = async (key: string) =>
    (
      await orm.em
        .fork()
        .getConnection()
        .execute<{ state: string; response_status: number | null }[]>(
          'select state, response_status from idempotency_keys where merchant_id = ? and key = ?',
          [MERCHANT, key],
        )
    )[0];

  it('commits the effect with its answer; the request reads its own writes', async () => {
    const key = `key_${randomUUID()}`;
    const first = await post(key);
    expect(first.status).toBe(201);
    expect(first.body.seen).toBe(1);
    expect(await effects(key)).toEqual([first.body.id]);
    expect(await keyRow(key)).toEqual({ state: 'COMPLETED', response_status: 201 });
    const replay = await post(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    expect(await effects(key)).toHaveLength(1);
  });

  it('rolls back the effects of a request that fails (5xx) and releases its key', async () => {
    const key = `key_${randomUUID()}`;
    const failed = await post(key, { then: 'crash' });
    expect(failed.status).toBe(500);
    expect(await effects(key)).toEqual([]);
    expect(await keyRow(key)).toBeUndefined();
  });

  it('stores a 4xx answer with the effects made before it', async () => {
    const key = `key_${randomUUID()}`;
    const refused = await post(key, { then: 'refuse' });
    expect(refused.status).toBe(422);
    expect(await effects(key)).toHaveLength(1);
    expect(await keyRow(key)).toEqual({ state: 'COMPLETED', response_status: 422 });
  });

  it('answers an error, with no effect and the key released, when the commit fails', async () => {
    const key = `key_${randomUUID()}`;
    const failed = await post(key, { prefix: 'fail' });
    expect(failed.status).toBe(500);
    expect(failed.body.error.code).toBe('internal_error');
    expect(await effects(key)).toEqual([]);
    expect(await keyRow(key)).toBeUndefined();
  });

  it('undoes a request whose key was taken over while it stalled past its lease', async () => {
    const key = `key_${randomUUID()}`;
    let release = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    held = { entered: false, release, gate };
    const stalled = post(key, {}, true);
    while (!held.entered) await sleep(10);
    // Its effect is made, not committed; its lease ends (it renews nothing: stalled).
    await orm.em
      .fork()
      .getConnection()
      .execute(
        `update idempotency_keys set created_at = created_at - interval '2 minutes'
          where merchant_id = ? and key = ?`,
        [MERCHANT, key],
      );
    const takeover = await post(key);
    expect(takeover.status).toBe(201);

    held.release();
    const late = await stalled;
    held = null;
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('idempotency_conflict');
    // One effect: the one whose answer is stored.
    expect(await effects(key)).toEqual([takeover.body.id]);
    const replay = await post(key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(takeover.text);
  });
});
