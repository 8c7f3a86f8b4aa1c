import { createHash } from 'node:crypto';
import pino from 'pino';
import { HeaderMap, type ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import type { FastifyBaseLogger } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import { createApollo } from '../../src/api/graphql/apollo';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';
import { graphqlDocumentCache, type DocumentCache } from '../../src/api/graphql/document-cache';
import { aliasedDepositPages } from '../support/graphql-documents';

/**
 * The gateway's Apollo (same rules, plugins and caches as `buildGateway` gives it) through
 * `executeHTTPGraphQLRequest`, the entry point the Fastify integration calls for every HTTP
 * request: documents parsed and validated once, shared with graphql-ws, and automatic
 * persisted queries, including hostile ones. No resolver runs (no database needed): the
 * documents either ask for `__typename` or are refused before execution.
 */
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const TYPENAME = '{ __typename }';

describe('GraphQL documents over HTTP: one parse per document, persisted queries', () => {
  let schema: GraphQLSchema;
  let documents: DocumentCache;
  let apollo: ApolloServer<object>;
  const errors: unknown[] = [];
  let parsed = 0;
  let validated = 0;
  const counting: ApolloServerPlugin = {
    requestDidStart: async () => ({
      parsingDidStart: async () => {
        parsed += 1;
      },
      validationDidStart: async () => {
        validated += 1;
      },
    }),
  };

  beforeAll(async () => {
    schema = await buildGraphQLSchema();
    documents = graphqlDocumentCache(schema, false);
    const log = pino({ level: 'error' }, { write: (line: string) => errors.push(line) });
    apollo = createApollo<object>(schema, {
      production: false,
      documents,
      log: log as unknown as FastifyBaseLogger,
      plugins: [counting],
    });
    await apollo.start();
  });
  afterAll(async () => {
    await apollo?.stop();
    // Nothing hostile here may read as an unexpected (internal) error.
    expect(errors).toEqual([]);
  });

  async function send(method: 'GET' | 'POST', payload: Record<string, unknown>) {
    const search =
      method === 'GET'
        ? Object.entries(payload)
            .map(
              ([k, v]) =>
                `${k}=${encodeURIComponent(typeof v === 'string' ? v : JSON.stringify(v))}`,
            )
            .join('&')
        : '';
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: {
        method,
        headers: new HeaderMap([
          ['content-type', 'application/json'],
          ['apollo-require-preflight', 'true'],
        ]),
        search,
        body: method === 'POST' ? payload : undefined,
      },
      context: async () => ({}),
    });
    const text = response.body.kind === 'complete' ? response.body.string : '';
    return { status: response.status ?? 200, body: JSON.parse(text) };
  }
  const persisted = (sha256Hash: unknown, version: unknown = 1) => ({
    persistedQuery: { version, sha256Hash },
  });

  it('parses and validates a document once, and graphql-ws finds it in the same cache', async () => {
    const query = '{ t1: __typename }';
    const before = { parsed, validated };
    for (let i = 0; i < 5; i += 1) {
      expect((await send('POST', { query })).body).toEqual({ data: { t1: 'Query' } });
    }
    expect(await send('GET', { query })).toEqual({ status: 200, body: { data: { t1: 'Query' } } });
    expect({ parsed: parsed - before.parsed, validated: validated - before.validated }).toEqual({
      parsed: 1,
      validated: 1,
    });
    const overHttp = await documents.documentStore.get(`schema:${sha256(query)}`);
    const overSocket = documents.check(query);
    expect(overHttp).toBeDefined();
    expect('document' in overSocket && overSocket.document).toBe(overHttp);
  });

  it('checks page sizes given as variables on every request, the document cached or not', async () => {
    const query = `query Pages($n: Int) { ${aliasedDepositPages(20, 1)
      .slice(2, -2)
      .replace(/first: 1/g, 'first: $n')} }`;
    for (const n of [100, 100]) {
      const refused = await send('POST', { query, variables: { n } });
      expect(refused.status).toBe(400);
      expect(refused.body.errors[0].message).toMatch(/cost exceeds/);
      expect(refused.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    }
    // Validation passed (page sizes as variables count as 1 there) and cached the document: the
    // second refusal came from the request's variables, not from a fresh validation.
    expect(await documents.documentStore.get(sha256(query))).toBeDefined();
  });

  it('answers an unknown hash with PersistedQueryNotFound, then serves it once registered', async () => {
    const query = '{ t2: __typename }';
    const hash = sha256(query);
    const unknown = await send('POST', { extensions: persisted(hash) });
    expect(unknown.body.errors).toEqual([
      {
        message: 'PersistedQueryNotFound',
        extensions: { code: 'INVALID_PARAMETER', reason: 'PERSISTED_QUERY_NOT_FOUND' },
      },
    ]);
    const registered = await send('POST', { query, extensions: persisted(hash) });
    expect(registered.body).toEqual({ data: { t2: 'Query' } });
    const before = parsed;
    expect((await send('POST', { extensions: persisted(hash) })).body).toEqual({
      data: { t2: 'Query' },
    });
    // GET carries the hash in `extensions` (a query string parameter).
    expect(await send('GET', { extensions: persisted(hash) })).toEqual({
      status: 200,
      body: { data: { t2: 'Query' } },
    });
    expect(parsed).toBe(before);
  });

  it('refuses a hash that is not the document’s, and registers nothing under it', async () => {
    const wrong = '0'.repeat(64);
    for (const method of ['POST', 'GET'] as const) {
      const answer = await send(method, { query: TYPENAME, extensions: persisted(wrong) });
      expect(answer.status).toBe(400);
      expect(answer.body.errors).toEqual([
        {
          message: 'provided sha does not match query',
          extensions: { code: 'INVALID_PARAMETER', reason: 'BAD_REQUEST' },
        },
      ]);
    }
    const after = await send('POST', { extensions: persisted(wrong) });
    expect(after.body.errors[0].message).toBe('PersistedQueryNotFound');
  });

  it('refuses huge, non-string and versionless hashes as the client’s fault', async () => {
    const notFound = [
      persisted('f'.repeat(200_000)),
      persisted(42),
      persisted({ $gt: '' }),
      persisted(null),
    ];
    for (const extensions of notFound) {
      const answer = await send('POST', { extensions });
      expect(answer.body.errors.map((e: { message: string }) => e.message)).toEqual([
        'PersistedQueryNotFound',
      ]);
    }
    for (const extensions of [
      persisted(sha256(TYPENAME), 2),
      { persistedQuery: 'x' },
      persisted({ a: 1 }),
    ]) {
      const answer = await send('POST', { query: TYPENAME, extensions });
      expect(answer.status).toBe(400);
      expect(answer.body.errors[0].extensions).toEqual({
        code: 'INVALID_PARAMETER',
        reason: 'BAD_REQUEST',
      });
    }
  });

  it('never registers a document that fails validation', async () => {
    const invalid = '{ noSuchField }';
    const hash = sha256(invalid);
    const refused = await send('POST', { query: invalid, extensions: persisted(hash) });
    expect(refused.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    const again = await send('POST', { extensions: persisted(hash) });
    expect(again.body.errors[0].message).toBe('PersistedQueryNotFound');
    expect(await documents.documentStore.get(hash)).toBeUndefined();
  });
});
