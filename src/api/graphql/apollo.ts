import { ApolloServer, type ApolloServerPlugin } from '@apollo/server';
import {
  ApolloServerPluginCacheControlDisabled,
  ApolloServerPluginInlineTraceDisabled,
  ApolloServerPluginLandingPageDisabled,
} from '@apollo/server/plugin/disabled';
import type { FastifyBaseLogger } from 'fastify';
import { GraphQLError, type DocumentNode, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { formatGraphQLError } from './errors';
import { hostileVariables } from '../nul-characters';
import { GRAPHQL_PARSE_OPTIONS, gatewayExtraRules, operationLimitError } from './validation-rules';
import { BoundedCache } from './bounded-cache';
import type { DocumentCache } from './document-cache';
import { costDependsOnVariables } from './limits';

/**
 * What a validated document's request may still be refused for, once its variables are known:
 * NUL characters or excessive nesting in them (variables of a GET are not in a JSON body, so
 * the body's NUL check never saw them), and a cost over the limit when page sizes are given as
 * variables (validation, done once per document, measured it without them).
 */
function variablesRefusal(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
): string | undefined {
  return (
    hostileVariables(variables ?? null) ??
    (costDependsOnVariables(document)
      ? operationLimitError(schema, document, operationName, variables)?.message
      : undefined)
  );
}

/**
 * Per request, one plugin (each plugin's hooks cost promises on every request): every answer
 * is per caller and live, so never cached; and the request's variables are checked before
 * execution (`variablesRefusal`).
 */
const perRequest: ApolloServerPlugin = {
  requestDidStart: async () => ({
    didResolveOperation: async ({ schema, document, operationName, request }) => {
      const refusal = variablesRefusal(schema, document, operationName, request.variables);
      if (refusal) {
        throw new GraphQLError(refusal, {
          extensions: { code: 'INVALID_PARAMETER', http: { status: 400 } },
        });
      }
    },
    willSendResponse: async ({ response }) => {
      response.http.headers.set('cache-control', 'no-store');
    },
  }),
};

/**
 * Automatic persisted queries: a client sends a document's SHA-256 instead of the document
 * once the gateway knows it (Apollo registers it from a request carrying both, after it
 * validated). An unknown hash answers `PersistedQueryNotFound`, and the client sends both.
 * Bounded by entries and total length, like the document cache.
 */
export const PERSISTED_QUERY_LIMITS = {
  maxEntries: 1000,
  maxEntrySize: 64 * 1024,
  maxTotalSize: 4 * 1024 * 1024,
};

/** The persisted queries' store (Apollo's keys: `apq:` and the document's SHA-256). */
function persistedQueryCache(): BoundedCache<string> {
  return new BoundedCache<string>(PERSISTED_QUERY_LIMITS, (query) => query.length);
}

export function createApollo<TContext extends object = GraphQLContext>(
  schema: GraphQLSchema,
  options: {
    production: boolean;
    log: FastifyBaseLogger;
    plugins?: ApolloServerPlugin[];
    /** Parsed and validated documents, shared with graphql-ws (none: Apollo's own store). */
    documents?: DocumentCache;
  },
): ApolloServer<TContext> {
  return new ApolloServer<TContext>({
    schema,
    ...(options.documents ? { documentStore: options.documents.documentStore } : {}),
    persistedQueries: { cache: persistedQueryCache() },
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
      // Installed implicitly otherwise, for federated subgraphs only (this schema is not one):
      // its request hook would still run, and await, on every request.
      ApolloServerPluginInlineTraceDisabled(),
      perRequest,
      ...(options.plugins ?? []),
    ],
    allowBatchedHttpRequests: false,
    validationRules: gatewayExtraRules({ production: options.production }),
    formatError: formatGraphQLError(options.log),
    includeStacktraceInErrorResponses: false,
    logger: options.log,
  });
}
