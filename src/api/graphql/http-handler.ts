import { Readable } from 'node:stream';
import { HeaderMap, type ApolloServer, type HTTPGraphQLRequest } from '@apollo/server';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { GraphQLContext } from './context';
import type { HotQueries } from './hot-queries';

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

const isJson = (contentType: string | undefined): boolean =>
  contentType !== undefined && /^application\/json\s*(;|$)/i.test(contentType);

/**
 * POST and GET /graphql: hot queries without Apollo's pipeline (`HotQueries`), everything else
 * through Apollo, whose answers also teach the hot path which content type each `accept`
 * header gets. A request the hot path answers is never handed to Apollo afterwards: the hot
 * path decides before executing, so a document executes once.
 */
export function graphqlHttpHandler(
  apollo: ApolloServer<GraphQLContext>,
  hot: HotQueries,
  contextOf: (request: FastifyRequest) => Promise<GraphQLContext>,
) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<unknown> => {
    const accept = request.headers.accept;
    // JSON only, as Apollo's CSRF prevention would have it (it refuses forms and plain text).
    if (request.method === 'POST' && isJson(request.headers['content-type'])) {
      const answer = await hot.answer(request.body, accept, () => contextOf(request));
      if (answer) {
        // As Apollo: the errors' headers, then its content type, then the plugin's no-store.
        for (const [name, value] of answer.headers) void reply.header(name, value);
        void reply
          .code(answer.status)
          .header('content-type', answer.contentType)
          .header('cache-control', 'no-store');
        return answer.body;
      }
    }
    const response = await apollo.executeHTTPGraphQLRequest({
      httpGraphQLRequest: apolloRequestOf(request),
      context: () => contextOf(request),
    });
    for (const [name, value] of response.headers) void reply.header(name, value);
    const status = response.status ?? 200;
    void reply.code(status);
    if (response.body.kind === 'complete') {
      if (status === 200) hot.learn(accept, response.headers.get('content-type'));
      return response.body.string;
    }
    return reply.send(Readable.from(response.body.asyncIterator));
  };
}
