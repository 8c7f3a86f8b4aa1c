import { createHash } from 'node:crypto';
import { buildSchema, type GraphQLSchema } from 'graphql';
import { persistedQueryCache } from '../../src/api/graphql/apollo';
import type { BoundedCache } from '../../src/api/graphql/bounded-cache';
import type { GraphQLContext } from '../../src/api/graphql/context';
import { formatGraphQLError } from '../../src/api/graphql/errors';
import { graphqlDocumentCache, type DocumentCache } from '../../src/api/graphql/document-cache';
import { DEFAULT_CONTENT_TYPE, HotQueries } from '../../src/api/graphql/hot-queries';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';

/**
 * Which requests the hot path answers and which it leaves to Apollo, on the gateway's schema
 * and document cache. Only `__typename` is asked for, so no resolver (and no database) runs;
 * the answers of real fields against Apollo's are compared end to end in
 * test/e2e/graphql-hot-queries.e2e.test.ts.
 */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const context = async () => ({}) as GraphQLContext;
const TYPENAME = 'query Probe { __typename }';
const silentLog = { error: () => undefined } as unknown as Parameters<typeof formatGraphQLError>[0];
const format = formatGraphQLError(silentLog);
const typenameAnswer = {
  status: 200,
  headers: new Map(),
  body: '{"data":{"__typename":"Query"}}\n',
  contentType: DEFAULT_CONTENT_TYPE,
};

describe('GraphQL hot path: what it answers', () => {
  let schema: GraphQLSchema;
  let documents: DocumentCache;
  let persisted: BoundedCache<string>;
  let hot: HotQueries;

  beforeAll(async () => {
    schema = await buildGraphQLSchema();
  });
  beforeEach(() => {
    documents = graphqlDocumentCache(schema, false);
    persisted = persistedQueryCache();
    hot = new HotQueries(schema, documents, persisted, format);
  });

  /** The document as Apollo or graphql-ws would have left it: checked and kept. */
  const known = (query: string) => {
    expect(documents.check(query)).toHaveProperty('document');
    return query;
  };

  it('answers a known query document as Apollo would, every time', async () => {
    expect(await hot.answer({ query: TYPENAME }, undefined, context)).toBeUndefined();
    known(TYPENAME);
    for (let i = 1; i <= 12; i += 1) {
      expect(await hot.answer({ query: TYPENAME, variables: null }, undefined, context)).toEqual(
        typenameAnswer,
      );
    }
    expect(hot.answered).toEqual({ graphqlJs: 12 });
  });

  it('answers errors itself, as Apollo shapes them, having executed once', async () => {
    const query = known('query Mine { merchant { id } }');
    const rateReader = async () =>
      ({ principal: { kind: 'secret_key', scopes: ['rates:read'] } }) as unknown as GraphQLContext;
    const answer = await hot.answer({ query }, undefined, rateReader);
    expect(answer).toEqual({
      ...typenameAnswer,
      body:
        '{"errors":[{"message":"This API key lacks the scope balance:read",' +
        '"locations":[{"line":1,"column":14}],"path":["merchant"],' +
        '"extensions":{"code":"INSUFFICIENT_SCOPE"}}],"data":null}\n',
    });
  });

  it('never executes a document twice, whatever its result', async () => {
    let runs = 0;
    const counting = buildSchema('type Query { boom: Int ok: Int }');
    counting.getQueryType()!.getFields().boom.resolve = () => {
      runs += 1;
      throw new Error('resolver failed');
    };
    const cache = graphqlDocumentCache(counting, false);
    const counted = new HotQueries(counting, cache, persisted, format);
    expect(cache.check('{ boom ok }')).toHaveProperty('document');
    const answer = await counted.answer({ query: '{ boom ok }' }, undefined, context);
    expect(runs).toBe(1);
    // An unexpected error is masked, as Apollo's formatter masks it, and still answered here.
    expect(answer?.body).toBe(
      '{"errors":[{"message":"An unexpected error occurred; quote the request id when contacting support","locations":[{"line":1,"column":3}],' +
        '"path":["boom"],"extensions":{"code":"INTERNAL_ERROR"}}],"data":{"boom":null,"ok":null}}\n',
    );
  });

  it('leaves to Apollo what is not a plain, known, valid query', async () => {
    known(TYPENAME);
    const twoOperations = known('query A { __typename } query B { __typename }');
    const mutation = known('mutation { __typename }');
    const withVariable = known('query V($id: ID!) { deposit(id: $id) { id } }');
    const subscription = known('subscription { depositUpdated { id } }');
    const refused = [
      { query: TYPENAME, operationName: 7 },
      { query: TYPENAME, variables: [] },
      { query: TYPENAME, variables: 'x' },
      { query: TYPENAME, extensions: {} },
      {
        query: TYPENAME,
        extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TYPENAME) } },
      },
      { query: twoOperations },
      { query: twoOperations, operationName: 'C' },
      { query: twoOperations, operationName: '' },
      { query: mutation },
      { query: withVariable, variables: { id: 'a\u0000b' } },
      // Variables that do not coerce are refused before anything runs: Apollo answers them.
      { query: withVariable, variables: {} },
      { query: withVariable, variables: { id: { a: 1 } } },
      { query: withVariable, variables: { id: true } },
      { query: subscription },
      { query: '' },
      { query: 'query Other { __typename }' },
      {},
      [],
      'query { __typename }',
      null,
    ];
    for (const body of refused) {
      expect(await hot.answer(body, undefined, context)).toBeUndefined();
    }
    // A context that cannot be built: nothing has run, Apollo answers.
    const failing = async (): Promise<GraphQLContext> => {
      throw new Error('no context');
    };
    expect(await hot.answer({ query: TYPENAME }, undefined, failing)).toBeUndefined();
    const named = await hot.answer(
      { query: twoOperations, operationName: 'B' },
      undefined,
      context,
    );
    expect(named?.body).toBe('{"data":{"__typename":"Query"}}\n');
    expect(hot.answered.graphqlJs).toBe(1);
  });

  it('answers a persisted-query hash only once Apollo has registered it', async () => {
    known(TYPENAME);
    const hashOnly = {
      extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TYPENAME) } },
    };
    expect(await hot.answer(hashOnly, undefined, context)).toBeUndefined();
    await persisted.set(`apq:${sha256(TYPENAME)}`, TYPENAME);
    expect((await hot.answer(hashOnly, undefined, context))?.body).toBe(
      '{"data":{"__typename":"Query"}}\n',
    );
    const odd = [
      { extensions: { persistedQuery: { version: 2, sha256Hash: sha256(TYPENAME) } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TYPENAME), x: 1 } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: 5 } } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256('other') } } },
      { extensions: { persistedQuery: null } },
      { extensions: { persistedQuery: { version: 1, sha256Hash: sha256(TYPENAME) }, more: true } },
    ];
    for (const body of odd) expect(await hot.answer(body, undefined, context)).toBeUndefined();
  });

  it('uses the content type Apollo chose for an accept header, and learns a bounded number', async () => {
    known(TYPENAME);
    const accept = 'application/graphql-response+json, application/json;q=0.9';
    expect(await hot.answer({ query: TYPENAME }, accept, context)).toBeUndefined();
    hot.learn(accept, 'application/graphql-response+json; charset=utf-8');
    expect((await hot.answer({ query: TYPENAME }, accept, context))?.contentType).toBe(
      'application/graphql-response+json; charset=utf-8',
    );
    for (let i = 0; i < 500; i += 1) hot.learn(`text/x-${i}`, DEFAULT_CONTENT_TYPE);
    expect(await hot.answer({ query: TYPENAME }, 'text/x-400', context)).toBeUndefined();
  });
});
