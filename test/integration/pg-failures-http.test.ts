import { randomBytes, randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import { buildSchema, graphql } from 'graphql';
import pino from 'pino';
import type { AddressLimiter } from '../../src/api/address-limit';
import { formatGraphQLError } from '../../src/api/graphql/errors';
import { installErrorPath } from '../../src/api/http-edge';
import { registerIdempotency } from '../../src/api/idempotency';
import { SecretBox } from '../../src/crypto/secret-box';
import { executeInTransaction } from '../../src/db/locks';
import { IdempotencyService } from '../../src/system/idempotency.service';
import { createTestDatabase, openTestOrm } from '../support/db';
import { request } from '../support/http';
import * as scenario from '../support/pg-failure-scenarios';

const MERCHANT = 'mer_pgf';

/**
 * A database failure that reaches a transport answers in the error shape (issue 34): a unique
 * violation 409 `idempotency_conflict` (the contract's conflict code) instead of 500, a race
 * still lost after retries or an unreachable database 503. Real PostgreSQL, real HTTP, the
 * gateway's own error path and Idempotency-Key hooks.
 */
describe('database failures at the transports', () => {
  let orm: MikroORM;
  let app: FastifyInstance;
  let baseUrl: string;
  const thrown = new Map<string, Error>();

  beforeAll(async () => {
    const url = await createTestDatabase();
    await scenario.preparePgFailureTables(url);
    orm = await openTestOrm(url);
    for (const [name, cause] of [
      ['serialization', scenario.serializationFailure],
      ['deadlock', scenario.deadlock],
      ['lock-timeout', scenario.lockTimeout],
      ['missing-table', scenario.missingTable],
    ] as const) {
      // As a service sees it: converted by MikroORM.
      thrown.set(name, orm.em.getDriver().convertException(await cause(url)));
    }

    app = Fastify();
    // Counts failed authentications only; no request here fails one.
    const limiter = { countFailure: async () => null } as unknown as AddressLimiter;
    installErrorPath(app, { limiter, isGraphQL: () => false });
    app.addHook('onRequest', async (req) => {
      req.em = orm.em.fork();
      req.principal = { kind: 'secret_key', merchantId: MERCHANT, keyId: 'k', scopes: ['all'] };
    });
    const idempotency = new IdempotencyService(new SecretBox(randomBytes(32)), {
      leaseMs: 60_000,
      heartbeatMs: 600_000,
    });
    registerIdempotency(app, { idempotency });
    app.post('/v1/items', async (req, reply) => {
      const { name } = req.body as { name: string };
      // As a service writes: a fork and its own transaction (a savepoint under a key).
      const [row] = await req.em
        .fork()
        .transactional((tx) =>
          executeInTransaction<{ id: number }>(
            tx,
            'insert into pgf_items (name) values (?) returning id',
            [name],
          ),
        );
      return reply.code(201).send({ id: row.id });
    });
    app.get('/v1/failures/:name', async (req) => {
      throw thrown.get((req.params as { name: string }).name)!;
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    baseUrl = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await app.close();
    await orm.close();
  });

  const post = (name: string, key?: string) =>
    request(baseUrl, 'POST', '/v1/items', {
      body: { name },
      headers: key ? { 'idempotency-key': key } : {},
    });

  function expectConflict(answer: { status: number; body: unknown; text: string }): void {
    expect(answer.status).toBe(409);
    expect(answer.body).toEqual({
      error: { code: 'idempotency_conflict', message: expect.any(String) },
    });
    // Nothing of the schema leaks: no table, constraint or driver text.
    expect(answer.text).not.toMatch(/pgf_|duplicate|constraint|violat/i);
  }

  it('answers a unique violation 409 in the error shape, not 500', async () => {
    const name = `n_${randomUUID()}`;
    expect((await post(name)).status).toBe(201);
    expectConflict(await post(name));
  });

  it('stores the 409 under an Idempotency-Key and replays it', async () => {
    const name = `n_${randomUUID()}`;
    expect((await post(name, `key_${randomUUID()}`)).status).toBe(201);
    const key = `key_${randomUUID()}`;
    const refused = await post(name, key);
    expectConflict(refused);
    const replay = await post(name, key);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect([replay.status, replay.text]).toEqual([409, refused.text]);
  });

  it('answers the loser of two concurrent creations 409', async () => {
    const name = `n_${randomUUID()}`;
    const answers = await Promise.all([
      post(name, `key_${randomUUID()}`),
      post(name, `key_${randomUUID()}`),
    ]);
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([201, 409]);
    expectConflict(answers.find((a) => a.status === 409)!);
  });

  it.each(['serialization', 'deadlock', 'lock-timeout'])(
    'answers a %s still lost after retries 503 service_unavailable',
    async (name) => {
      const answer = await request(baseUrl, 'GET', `/v1/failures/${name}`);
      expect(answer.status).toBe(503);
      expect(answer.body).toEqual({
        error: { code: 'service_unavailable', message: expect.any(String) },
      });
    },
  );

  it('keeps any other database error a masked 500', async () => {
    const answer = await request(baseUrl, 'GET', '/v1/failures/missing-table');
    expect(answer.status).toBe(500);
    expect(answer.body.error.code).toBe('internal_error');
    expect(answer.text).not.toContain('pgf_');
  });

  it('gives GraphQL the same codes, through a resolver', async () => {
    const name = `n_${randomUUID()}`;
    await post(name);
    const schema = buildSchema('type Query { duplicate: Int, deadlock: Int }');
    const rootValue = {
      // As a resolver's service call fails: a real unique violation, MikroORM-converted.
      duplicate: () =>
        orm.em
          .fork()
          .transactional((tx) => tx.execute('insert into pgf_items (name) values (?)', [name])),
      deadlock: () => Promise.reject(thrown.get('deadlock')!),
    };
    const result = await graphql({ schema, source: '{ duplicate deadlock }', rootValue });
    const format = formatGraphQLError(pino({ level: 'silent' }));
    const codes = result.errors!.map((e) => format(e.toJSON(), e).extensions?.code).sort();
    expect(codes).toEqual(['IDEMPOTENCY_CONFLICT', 'SERVICE_UNAVAILABLE']);
  });
});
