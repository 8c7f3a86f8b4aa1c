import { Client } from 'pg';
import { graphql, request } from '../support/http';
import { startOwnPostgres, type OwnPostgres } from '../support/own-postgres';
import { settledBalanceDeposit } from '../support/onramps';
import { createMerchant, startStack, type Stack } from '../support/stack';

/**
 * A GraphQL document executes once per request, whatever its result: an answer with an error
 * is never worked out twice (as when a hot path beside Apollo handed it on). Seen from outside
 * through PostgreSQL itself: `pg_stat_statements` counts every statement the gateway runs
 * against the deposits table, and a mutation's effects are counted through the REST API.
 */
const SENDS = 6;

describe('GraphQL: one execution per request', () => {
  let postgres: OwnPostgres;
  let stack: Stack;
  let stats: Client;
  let key: string;
  let depositsOnlyKey: string;
  let depositId: string;

  beforeAll(async () => {
    postgres = await startOwnPostgres('single-execution', {
      shared_preload_libraries: 'pg_stat_statements',
      'pg_stat_statements.track': 'all',
    });
    stack = await startStack(postgres.url, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = (await createMerchant(postgres.url, 'Once')).api_key;
    depositId = (await settledBalanceDeposit(stack.url, key, '10000')).deposit.deposit_id;
    const restricted = await request(stack.url, 'POST', '/v1/api_keys', {
      key,
      body: { name: 'deposits', scopes: ['deposits:read'] },
    });
    depositsOnlyKey = restricted.body.secret;
    // Nothing else reads deposits from here on: the counts are the gateway's answers alone.
    await stack.runners[0].stop();
    stats = new Client({ connectionString: postgres.url });
    await stats.connect();
    await stats.query('create extension if not exists pg_stat_statements');
  });
  afterAll(async () => {
    await stats?.end();
    await stack?.stop();
    await postgres?.stop();
  });

  /** Statements run on the deposits table since the last reset (this query's own excluded). */
  async function depositStatements(): Promise<number> {
    const { rows } = await stats.query<{ calls: string | null }>(
      `select sum(calls) as calls from pg_stat_statements
        where query ilike '%deposits%' and query not ilike '%pg_stat_statements%'`,
    );
    return Number(rows[0].calls ?? 0);
  }

  /** The document sent SENDS times after Apollo has seen it once; its deposit statements. */
  async function statementsOf(credential: string, query: string, errors: boolean) {
    const first = await graphql(stack.url, credential, query, { id: depositId });
    expect(first.body.errors !== undefined).toBe(errors);
    await stats.query('select pg_stat_statements_reset()');
    for (let i = 0; i < SENDS; i += 1) {
      const again = await graphql(stack.url, credential, query, { id: depositId });
      expect(again.text).toBe(first.text);
    }
    return depositStatements();
  }

  it('runs a query with an erroring field once, as it runs one without', async () => {
    const clean = await statementsOf(
      depositsOnlyKey,
      'query Clean($id: ID!) { deposit(id: $id) { id status } }',
      false,
    );
    expect(clean).toBeGreaterThanOrEqual(SENDS);
    // The same read beside a field the key may not see: the answer has an error.
    const failing = await statementsOf(
      depositsOnlyKey,
      'query Failing($id: ID!) { deposit(id: $id) { id status } merchant { id } }',
      true,
    );
    expect(failing).toBe(clean);
  });

  it('runs a mutation with an erroring field once per request', async () => {
    const mutation = `mutation Twice {
      made: createApiKey(input: { name: "once-only", scopes: ["rates:read"] }) { id }
      failed: revokeApiKey(id: "key_00000000000000000000000000") { id }
    }`;
    for (let i = 0; i < 12; i += 1) {
      const answer = await graphql(stack.url, key, mutation);
      expect(answer.body.errors?.length).toBe(1);
    }
    const listed = await request(stack.url, 'GET', '/v1/api_keys?per_page=100', { key });
    const made = (listed.body.api_keys as Array<{ name: string }>).filter(
      (k) => k.name === 'once-only',
    );
    expect(made).toHaveLength(12);
  });
});
