import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { graphqlDocument, variables } from './graphql-documents';
import { CONTENT_TYPES, credentials } from './hostile';
import type { SentRequest } from './oracle';
import type { FuzzWorld } from './world';

/** One GraphQL-over-HTTP request: POST or GET, single or batched, with any credential. */
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
      ),
      contentType: fc.constantFrom(...CONTENT_TYPES),
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
      if (r.cookie) {
        headers.cookie = r.cookie;
        headers['x-csrf-token'] = 'token';
      }
      const payload = { query: r.query, variables: r.variables, operationName: r.operationName };
      const base = { transport: 'graphql', headers, credential: r.credential.label };
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
