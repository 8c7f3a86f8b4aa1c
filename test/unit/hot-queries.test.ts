import { createHash } from 'node:crypto';
import type { GraphQLSchema } from 'graphql';
import { persistedQueryCache } from '../../src/api/graphql/apollo';
import type { BoundedCache } from '../../src/api/graphql/bounded-cache';
import type { GraphQLContext } from '../../src/api/graphql/context';
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
    hot = new HotQueries(schema, documents, persisted, { compileAfter: 3 });
  });

  /** The document as Apollo or graphql-ws would have left it: checked and kept. */
  const known = (query: string) => {
    expect(documents.check(query)).toHaveProperty('document');
    return query;
  };

  it('answers a known query document as Apollo would, compiling it once it is hot', async () => {
    expect(await hot.answer({ query: TYPENAME }, undefined, context)).toBeUndefined();
    known(TYPENAME);
    for (let i = 1; i <= 5; i += 1) {
      expect(await hot.answer({ query: TYPENAME, variables: null }, undefined, context)).toEqual({
        body: '{"data":{"__typename":"Query"}}\n',
        contentType: DEFAULT_CONTENT_TYPE,
      });
    }
    expect(hot.answered).toEqual({ graphqlJs: 2, compiled: 3 });
  });

  it('leaves to Apollo what is not a plain, known, valid query', async () => {
    known(TYPENAME);
    const twoOperations = known('query A { __typename } query B { __typename }');
    const mutation = known('mutation { __typename }');
    const withVariable = known('query V($id: ID!) { deposit(id: $id) { id } }');
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
    const named = await hot.answer(
      { query: twoOperations, operationName: 'B' },
      undefined,
      context,
    );
    expect(named?.body).toBe('{"data":{"__typename":"Query"}}\n');
    expect(hot.answered.graphqlJs + hot.answered.compiled).toBe(1);
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
