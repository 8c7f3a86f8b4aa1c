import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import { ApolloServerPluginLandingPageDisabled } from '@apollo/server/plugin/disabled';
import type { FastifyBaseLogger } from 'fastify';
import type { GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { formatGraphQLError } from './errors';
import { queryLimitsRule } from './limits';

export function createApollo<TContext extends object = GraphQLContext>(
  schema: GraphQLSchema,
  options: { production: boolean; log: FastifyBaseLogger; plugins?: ApolloServerPlugin[] },
): ApolloServer<TContext> {
  return new ApolloServer<TContext>({
    schema,
    introspection: !options.production,
    // The hosted landing pages load code from outside; the service serves nothing it does not ship.
    plugins: [ApolloServerPluginLandingPageDisabled(), ...(options.plugins ?? [])],
    allowBatchedHttpRequests: false,
    validationRules: [queryLimitsRule()],
    formatError: formatGraphQLError(options.log),
    includeStacktraceInErrorResponses: false,
    logger: options.log,
  });
}
