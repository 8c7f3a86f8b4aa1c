import type { MikroORM } from '@mikro-orm/postgresql';
import pino from 'pino';
import type { ApolloServer } from '@apollo/server';
import type { FastifyBaseLogger } from 'fastify';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/container';
import { createApollo } from '../../src/api/graphql/apollo';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';
import type { GraphQLContext } from '../../src/api/graphql/context';
import { createTestDatabase, openTestOrm } from '../support/db';
import { depositKit } from '../support/deposits';
import { aliasedDepositPages } from '../support/graphql-documents';
import { secretKeyContext } from '../support/contexts';

/**
 * The merchant GraphQL schema executed by Apollo as the gateway builds it (same rules and
 * plugins), on a real database, counting the SQL statements a request runs.
 */
describe('GraphQL per-node fields are loaded in batches (real PostgreSQL)', () => {
  let orm: MikroORM;
  let services: Services;
  let apollo: ApolloServer<GraphQLContext>;
  let merchantId: string;
  let otherMerchantId: string;
  let otherDepositId: string;
  const statements: string[] = [];

  beforeAll(async () => {
    orm = await openTestOrm(await createTestDatabase());
    const clock = new ManualClock('2026-07-01T12:00:00Z');
    services = createServices(loadConfig({ ONRAMP_DAILY_LIMIT: '1000' }), clock);
    const kit = depositKit(orm, services, clock);
    await kit.rate(); // onramps need a current rate
    merchantId = await kit.merchant('Batch Co');
    const onramp = await kit.onramp(merchantId, 'PERMANENT');
    for (let i = 0; i < 100; i += 1) await kit.transfer(onramp.accountNumber, '5000');
    otherMerchantId = await kit.merchant('Other Co');
    const otherOnramp = await kit.onramp(otherMerchantId, 'PERMANENT');
    otherDepositId = (await kit.transfer(otherOnramp.accountNumber, '7000')).id;

    apollo = createApollo(await buildGraphQLSchema(), {
      production: false,
      log: pino({ level: 'silent' }) as unknown as FastifyBaseLogger,
    });
    await apollo.start();
    orm.em
      .getConnection()
      .getKnex()
      .on('query', (query: { sql: string }) => statements.push(query.sql));
  }, 120_000);
  afterAll(async () => {
    await apollo?.stop();
    await orm?.close();
  });

  async function run(query: string, variables: Record<string, unknown> = {}) {
    statements.length = 0;
    const response = await apollo.executeOperation(
      { query, variables },
      {
        contextValue: {
          em: orm.em.fork(),
          principal: { kind: 'secret_key', merchantId, keyId: 'key_test', scopes: ['all'] },
          requestContext: secretKeyContext(services, merchantId),
          services,
          requestId: 'req_test',
        },
      },
    );
    if (response.body.kind !== 'single') throw new Error('expected a single result');
    return { result: response.body.singleResult, statements: [...statements] };
  }

  it('reads the histories of a page of 100 deposits in one statement', async () => {
    const { result, statements: sql } = await run(
      'query($n: Int) { deposits(first: $n) { edges { node { id statusHistory { status event } } } } }',
      { n: 100 },
    );
    expect(result.errors).toBeUndefined();
    const edges = (result.data as { deposits: { edges: Array<{ node: { statusHistory: [] } }> } })
      .deposits.edges;
    expect(edges).toHaveLength(100);
    for (const edge of edges) expect(edge.node.statusHistory.length).toBeGreaterThan(0);
    // The page, its count and one for all the histories (one per deposit before: 102).
    expect(sql.filter((s) => /\bevents\b/.test(s))).toHaveLength(1);
    expect(sql.length).toBeLessThanOrEqual(4);
  });

  it('refuses twenty aliased pages of 100 deposits with their histories before running any', async () => {
    const { result, statements: sql } = await run(aliasedDepositPages());
    expect(result.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/cost exceeds the limit/),
      extensions: { code: 'INVALID_PARAMETER' },
    });
    expect(sql).toEqual([]);
  });

  it('refuses the same with `first` as a variable, before running any', async () => {
    const query = `query Pages($n: Int) ${aliasedDepositPages().replace(/first: 100/g, 'first: $n')}`;
    const refused = await run(query, { n: 100 });
    expect(refused.result.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/cost exceeds the limit/),
      extensions: { code: 'INVALID_PARAMETER' },
    });
    expect(refused.statements).toEqual([]);
    const small = await run(query, { n: 2 });
    expect(small.result.errors).toBeUndefined();
  });

  it('never returns another merchant’s history', async () => {
    const histories = await services.deposits.statusHistories(
      orm.em.fork(),
      secretKeyContext(services, merchantId),
      [otherDepositId],
    );
    expect(histories.size).toBe(0);
    const own = await services.deposits.statusHistories(
      orm.em.fork(),
      secretKeyContext(services, otherMerchantId),
      [otherDepositId],
    );
    expect(own.get(otherDepositId)?.length).toBeGreaterThan(0);
  });
});
