import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { formatGraphQLError } from './errors';
import { hostileVariables } from '../nul-characters';
import { GRAPHQL_PARSE_OPTIONS, gatewayExtraRules, operationLimitError } from './validation-rules';

/** Every GraphQL answer is per caller and live: never cached. */
const noStore: ApolloServerPlugin = {
  requestDidStart: async () => ({
    willSendResponse: async ({ response }) => {
      response.http.headers.set('cache-control', 'no-store');
    },
  }),
};

/**
 * Page sizes given as variables are only known per request, after validation (whose result
 * Apollo caches per document): the cost is checked again with them before execution.
 */
const operationCost: ApolloServerPlugin = {
  requestDidStart: async () => ({
    didResolveOperation: async ({ schema, document, operationName, request }) => {
      // Variables of a GET are not in a JSON body, so the body's NUL check never saw them.
      const refusal =
        hostileVariables(request.variables ?? null) ??
        operationLimitError(schema, document, operationName, request.variables)?.message;
      if (refusal) {
        throw new GraphQLError(refusal, {
          extensions: { code: 'INVALID_PARAMETER', http: { status: 400 } },
        });
      }
    },
  }),
};

export function createApollo<TContext extends object = GraphQLContext>(
  schema: GraphQLSchema,
  options: { production: boolean; log: FastifyBaseLogger; plugins?: ApolloServerPlugin[] },
): ApolloServer<TContext> {
  return new ApolloServer<TContext>({
    schema,
    // Introspection is refused by the gateway's own rule in production (gatewayExtraRules), the
    // same on HTTP and the websocket; Apollo's would add a second, differently shaped error.
    introspection: true,
    parseOptions: GRAPHQL_PARSE_OPTIONS,
    // The hosted landing pages load code from outside; the service serves nothing it does not ship.
    plugins: [
      ApolloServerPluginLandingPageDisabled(),
      // The default cache-control plugin hooks every field to compute a policy this schema
      // never sets; its one output, `cache-control: no-store`, is set here instead.
      ApolloServerPluginCacheControlDisabled(),
      noStore,
      operationCost,
      ...(options.plugins ?? []),
    ],
    allowBatchedHttpRequests: false,
    validationRules: gatewayExtraRules({ production: options.production }),
    formatError: formatGraphQLError(options.log),
    includeStacktraceInErrorResponses: false,
    logger: options.log,
  });
}
