import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { FastifyBaseLogger } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { formatGraphQLError } from './errors';
import { queryLimitsRule } from './limits';

/** Every GraphQL answer is per caller and live: never cached. */
const noStore: ApolloServerPlugin = {
  requestDidStart: async () => ({
    willSendResponse: async ({ response }) => {
      response.http.headers.set('cache-control', 'no-store');
    },
  }),
};

export function createApollo<TContext extends object = GraphQLContext>(
  schema: GraphQLSchema,
  options: { production: boolean; log: FastifyBaseLogger; plugins?: ApolloServerPlugin[] },
): ApolloServer<TContext> {
  return new ApolloServer<TContext>({
    schema,
    introspection: !options.production,
    // The hosted landing pages load code from outside; the service serves nothing it does not ship.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // The default cache-control plugin hooks every field to compute a policy this schema
      // never sets; its one output, `cache-control: no-store`, is set here instead.
      ApolloServerPluginCacheControlDisabled(),
      noStore,
      ...(options.plugins ?? []),
    ],
    allowBatchedHttpRequests: false,
    validationRules: [queryLimitsRule()],
    formatError: formatGraphQLError(options.log),
    includeStacktraceInErrorResponses: false,
    logger: options.log,
  });
}
