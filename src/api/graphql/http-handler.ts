import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLContext } from './context';

/**
 * The Fastify request as Apollo's HTTP request, as `@as-integrations/fastify` builds it, but
 * parsing the URL only when it has a query string (a POST to /graphql has none).
 */
function apolloRequestOf(request: FastifyRequest): HTTPGraphQLRequest {
  const headers = new HeaderMap();
  for (const [key, value] of Object.entries(request.headers)) {
    if (value) headers.set(key, Array.isArray(value) ? value.join(', ') : value);
  }
  const search = request.url.includes('?')
    ? new URL(request.url, 'http://gateway.invalid/').search
    : '';
  return { method: request.method.toUpperCase(), headers, body: request.body, search };
}

/**
 * POST and GET /graphql: every request through Apollo's request pipeline (its plugins, its
 * error formatting), as `@as-integrations/fastify` hands it over.
 */
export function graphqlHttpHandler(
  apollo: ApolloServer<GraphQLContext>,
  contextOf: (request: FastifyRequest) => Promise<GraphQLContext>,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: apolloRequestOf(request),
      context: () => contextOf(request),
    });
    for (const [name, value] of response.headers) void reply.header(name, value);
    const status = response.status ?? 200;
    void reply.code(status);
    if (response.body.kind === 'complete') return response.body.string;
    return reply.send(Readable.from(response.body.asyncIterator));
  };
}
