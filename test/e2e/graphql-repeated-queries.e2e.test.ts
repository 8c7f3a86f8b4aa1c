import { createHash } from 'node:crypto';
import { getOperationAST, parse } from 'graphql';
import * as dashboard from '../../dashboard/src/documents';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { randomAddress, settledBalanceDeposit } from '../support/onramps';
import { createMerchant, startStack, type Stack } from '../support/stack';

/**
 * A document's first answer against its next ones, through a real gateway: every case is sent
 * REPEAT times. The first time Apollo parses and validates the document (the gateway has not
 * seen it); from then on its pipeline takes it from the shared document cache (its document
 * store). Every answer of a case must be byte for byte the first one: status, content type,
 * cache-control and body, errors included. The job runner is stopped once the data is in, so
 * nothing changes between answers. (Until issue 34 a hot path answered the repeats outside
 * Apollo's pipeline; these are the answers it was held to.)
 */
const REPEAT = 14;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

interface Case {
  name: string;
  query?: string;
  variables?: unknown;
  operationName?: string;
  extensions?: unknown;
  key?: string;
  accept?: string;
  contentType?: string;
}

describe('GraphQL: a cached document answers as it did the first time', () => {
  let stack: Stack;
  let key: string;
  let ratesOnlyKey: string;
  let clientSecret: string;
  let depositId: string;
  let onrampId: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    key = (await createMerchant(databaseUrl, 'Repeat Reader')).api_key;
    const { deposit, onramp } = await settledBalanceDeposit(stack.url, key, '25000');
    depositId = deposit.deposit_id;
    onrampId = onramp.onramp_id;
    clientSecret = onramp.client_secret;
    const created = async (path: string, body: unknown) => {
      const response = await request(stack.url, 'POST', path, { key, body });
      if (response.status !== 201) throw new Error(`${path}: ${response.status} ${response.text}`);
      return response.body;
    };
    await created('/v1/webhook_endpoints', {
      url: 'https://example.com/hooks',
      enabled_events: ['*'],
    });
    const address = { chain: 'BASE', address: randomAddress(), label: 'treasury' };
    await created('/v1/merchant/withdrawal_addresses', address);
    const restricted = await created('/v1/api_keys', { name: 'rates', scopes: ['rates:read'] });
    ratesOnlyKey = restricted.secret;
    // From here on nothing writes: no settlement, deliveries or new rates between answers.
    await stack.runners[0].stop();
  });
  afterAll(() => stack?.stop());

  async function send(c: Case) {
    const headers: Record<string, string> = {
      'content-type': c.contentType ?? 'application/json',
      authorization: `Bearer ${c.key ?? key}`,
    };
    if (c.accept !== undefined) headers.accept = c.accept;
    const response = await fetch(`${stack.url}/graphql`, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        query: c.query,
        variables: c.variables,
        operationName: c.operationName,
        extensions: c.extensions,
      }),
    });
    const h = response.headers;
    const head = `${response.status} ${h.get('content-type')} ${h.get('cache-control')}`;
    return `${head}\n${await response.text()}`;
  }

  /**
   * Every answer the same as the first; the first returned. The case's name goes into its
   * document as a comment, so the gateway sees the document for the first time (parses and
   * validates it) on the first send, even when another case sent the same query.
   */
  async function sameEveryTime(c: Case): Promise<string> {
    const fresh = c.query === undefined ? c : { ...c, query: `${c.query}\n# case: ${c.name}` };
    const answers: string[] = [];
    for (let i = 0; i < REPEAT; i += 1) answers.push(await send(fresh));
    for (const [i, answer] of answers.entries()) {
      if (answer !== answers[0]) {
        throw new Error(`${c.name}: answer ${i + 1} differs:\n${answers[0]}\n---\n${answer}`);
      }
    }
    return answers[0];
  }

  /** Variables of the dashboard's queries, by name. */
  const variablesFor = (query: string): Record<string, unknown> => {
    const values: Record<string, unknown> = {
      id: depositId,
      first: 10,
      from: 'NGN',
      to: 'USDC',
      days: 7,
      endpointId: null,
    };
    const operation = getOperationAST(parse(query));
    const names = (operation?.variableDefinitions ?? []).map((d) => d.variable.name.value);
    for (const name of names) {
      if (!(name in values)) throw new Error(`no value for $${name}: add one to variablesFor`);
    }
    return Object.fromEntries(names.map((name) => [name, values[name]]));
  };

  it('answers every dashboard query alike, once the gateway has seen it', async () => {
    const queries = Object.entries(dashboard as Record<string, unknown>).filter(
      (entry): entry is [string, string] =>
        typeof entry[1] === 'string' && /^\s*query\b/.test(entry[1]),
    );
    expect(queries.length).toBeGreaterThanOrEqual(10);
    for (const [name, query] of queries) {
      const first = await sameEveryTime({ name, query, variables: variablesFor(query) });
      expect(first).toMatch(/^200 application\/json; charset=utf-8 no-store\n\{"data":\{/);
      expect(first).not.toContain('"errors"');
    }
  });

  it('answers fragments, aliases, directives, pages and named operations alike', async () => {
    const crafted = `query Crafted($id: ID!, $withPayer: Boolean!, $first: Int) {
      a: deposit(id: $id) { ...Amounts payer @include(if: $withPayer) { accountName bankCode } }
      b: deposit(id: "dep_00000000000000000000000000") { id }
      page: deposits(first: $first) { edges { cursor node { id ... on Deposit { status } } }
        pageInfo { hasNextPage endCursor } }
      merchant { __typename name balance { usdAvailable } }
      __typename
    }
    fragment Amounts on Deposit { id amountNgn amountAsset status createdAt settledAt }
    query Other { rate(from: "NGN") { rateId rate } }`;
    const cases: Case[] = [
      {
        name: 'with payer',
        query: crafted,
        operationName: 'Crafted',
        variables: { id: depositId, withPayer: true, first: 1 },
      },
      {
        name: 'without payer',
        query: crafted,
        operationName: 'Crafted',
        variables: { id: depositId, withPayer: false },
      },
      { name: 'second operation', query: crafted, operationName: 'Other' },
      { name: 'ID from an Int', query: dashboard.DEPOSIT_QUERY, variables: { id: 5 } },
      {
        name: 'client secret',
        key: clientSecret,
        query: `{ onramp(id: "${onrampId}") { onrampId status } deposit(id: "${depositId}") { id status } }`,
      },
    ];
    for (const c of cases) {
      const first = await sameEveryTime(c);
      expect(first).toMatch(/^200 /);
      expect(first).not.toContain('"errors"');
    }
  });

  it('keeps aliases named after Object.prototype in place, every time', async () => {
    // A compiled executor that builds answers in plain objects drops `__proto__` or moves it.
    const query = `query Proto($id: ID!) {
      __proto__: deposit(id: $id) { __proto__: id constructor: status toString: amountNgn }
      constructor: merchant { __proto__: name hasOwnProperty: id }
      toString: __typename
      valueOf: deposit(id: $id) { __proto__: __typename isPrototypeOf: id }
      propertyIsEnumerable: rate(from: "NGN") { __proto__: from }
    }`;
    const first = await sameEveryTime({
      name: '__proto__ aliases',
      query,
      variables: { id: depositId },
    });
    expect(first).toMatch(/^200 /);
    expect(first).toContain('{"data":{"__proto__":{"__proto__":"');
    expect(first).not.toContain('"errors"');
  });

  it('refuses and fails alike, every time', async () => {
    const cases: Case[] = [
      { name: 'no operation chosen', query: 'query A { __typename } query B { __typename }' },
      { name: 'unknown operation', query: 'query A { __typename }', operationName: 'B' },
      { name: 'missing variable', query: dashboard.DEPOSIT_QUERY, variables: {} },
      { name: 'object for an ID', query: dashboard.DEPOSIT_QUERY, variables: { id: { a: 1 } } },
      { name: 'boolean for an ID', query: dashboard.DEPOSIT_QUERY, variables: { id: true } },
      { name: 'page too large', query: dashboard.DEPOSITS_QUERY, variables: { first: 100000 } },
      {
        name: 'outside the key scope',
        key: ratesOnlyKey,
        query: dashboard.DEPOSIT_QUERY,
        variables: { id: depositId },
      },
      { name: 'client secret on merchant', key: clientSecret, query: '{ merchant { id } }' },
      {
        name: 'partly outside the key scope',
        key: ratesOnlyKey,
        query: `{ rate(from: "NGN") { from } __proto__: deposit(id: "${depositId}") { id } }`,
      },
      { name: 'invalid document', query: '{ deposit { nope } }' },
      // Apollo's CSRF prevention refuses a body a form could send.
      { name: 'plain text body', query: dashboard.MERCHANT_QUERY, contentType: 'text/plain' },
    ];
    for (const c of cases) {
      const first = await sameEveryTime(c);
      expect(first).toContain('"errors"');
    }
  });

  it('answers each accept header with the same content type every time', async () => {
    const query = dashboard.RATE_QUERY;
    const variables = { from: 'NGN', to: 'USDT' };
    const accepts = [
      '*/*',
      'application/json',
      'application/graphql-response+json',
      'application/graphql-response+json,application/json;q=0.9',
      'text/html',
    ];
    for (const accept of accepts) {
      const first = await sameEveryTime({ name: accept, query, variables, accept });
      expect(first).toMatch(accept === 'text/html' ? /^406 / : /^200 /);
    }
  });

  it('answers a persisted query by its hash alike, once registered', async () => {
    const query = dashboard.MERCHANT_QUERY.replace('DashboardMerchant', 'PersistedMerchant');
    const persistedQuery = { version: 1, sha256Hash: sha256(query) };
    const unknown = await send({ name: 'unknown hash', extensions: { persistedQuery } });
    expect(unknown).toContain('PersistedQueryNotFound');
    const registered = await send({ name: 'register', query, extensions: { persistedQuery } });
    const byHash = await sameEveryTime({ name: 'by hash', extensions: { persistedQuery } });
    expect(byHash).toBe(registered);
  });
});
