import { createHash } from 'node:crypto';
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { graphqlDocument, variables } from './graphql-documents';
import { browserOrigins, CONTENT_TYPES, credentials } from './hostile';
import type { SentRequest } from './oracle';
import type { FuzzWorld } from './world';

/**
 * One GraphQL-over-HTTP request: POST or GET, single or batched, or as an automatic persisted
 * query, with any credential.
 */
export function graphqlRequest(schema: GraphQLSchema, world: FuzzWorld): fc.Arbitrary<SentRequest> {
  return fc
    .record({
      query: graphqlDocument(schema, world),
      variables: variables(world),
      // fc.option's freq is the odds of *no* value: 1 in `freq`.
      operationName: fc.oneof(
        { weight: 8, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom('A', 'Missing', '') },
      ),
      credential: credentials(world),
      framing: fc.constantFrom(
        'post',
        'post',
        'post',
        'post',
        'post',
        'post',
        'get',
        'get-preflight',
        'batch',
        'query-not-string',
        'content-type',
        'apq-register',
        'apq-hash-only',
        'apq-bad-hash',
        'apq-get',
      ),
      // What a hostile persisted query carries instead of the document's hash.
      badHash: fc.oneof(
        fc.constantFrom('0'.repeat(64), 'f'.repeat(100_000), '', null, 42),
        fc.string({ maxLength: 80 }),
        fc.record({ $gt: fc.string({ maxLength: 5 }) }),
      ),
      apqVersion: fc.constantFrom<unknown>(1, 1, 1, 1, 2, '1', null),
      contentType: fc.constantFrom(...CONTENT_TYPES),
      origin: fc.oneof(
        { weight: 7, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...browserOrigins(world)) },
      ),
      cookie: fc.oneof(
        { weight: 12, arbitrary: fc.constant(undefined) },
        {
          weight: 1,
          arbitrary: fc.constantFrom('onramp_session=abc', `onramp_session=${'s'.repeat(300)}`),
        },
      ),
    })
    .map((r) => {
      const headers: Record<string, string> = {};
      if (r.credential.header !== undefined) headers.authorization = r.credential.header;
      if (r.origin !== undefined) headers.origin = r.origin;
      if (r.cookie) {
        headers.cookie = r.cookie;
        headers['x-csrf-token'] = 'token';
      }
      const payload = { query: r.query, variables: r.variables, operationName: r.operationName };
      const base = {
        transport: 'graphql',
        headers,
        credential: r.credential.label,
        document: r.query,
        operationName: r.operationName,
      };
      // Automatic persisted queries: the document's hash with it (registers it once valid), the
      // hash alone (known or not), or something else in its place; GET carries them too.
      const hash = createHash('sha256').update(r.query).digest('hex');
      const persisted = (sha256Hash: unknown) => ({
        persistedQuery: { version: r.apqVersion, sha256Hash },
      });
      if (r.framing === 'apq-get') {
        const extensions = encodeURIComponent(JSON.stringify(persisted(hash)));
        return {
          ...base,
          method: 'GET',
          headers: { ...headers, 'apollo-require-preflight': 'true' },
          path: `/graphql?query=${encodeURIComponent(toWellFormed(r.query))}&extensions=${extensions}`,
        };
      }
      if (r.framing.startsWith('apq-')) {
        headers['content-type'] = 'application/json';
        const body =
          r.framing === 'apq-register'
            ? { ...payload, extensions: persisted(hash) }
            : r.framing === 'apq-hash-only'
              ? { variables: r.variables, extensions: persisted(hash) }
              : { ...payload, extensions: persisted(r.badHash) };
        return { ...base, method: 'POST', path: '/graphql', body: JSON.stringify(body) };
      }
      if (r.framing === 'get' || r.framing === 'get-preflight') {
        if (r.framing === 'get-preflight') headers['apollo-require-preflight'] = 'true';
        const vars =
          r.variables === undefined
            ? ''
            : `&variables=${encodeURIComponent(JSON.stringify(r.variables))}`;
        return {
          ...base,
          method: 'GET',
          path: `/graphql?query=${encodeURIComponent(toWellFormed(r.query))}${vars}`,
        };
      }
      headers['content-type'] = r.framing === 'content-type' ? r.contentType : 'application/json';
      const body =
        r.framing === 'batch'
          ? JSON.stringify([payload, payload])
          : r.framing === 'query-not-string'
            ? JSON.stringify({ query: { q: r.query }, variables: 'x' })
            : JSON.stringify(payload);
      return { ...base, method: 'POST', path: '/graphql', body };
    });
}

function toWellFormed(text: string): string {
  return text.replace(/[\ud800-\udfff]/g, '\ufffd');
}
