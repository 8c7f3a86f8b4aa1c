import {
  GraphQLError,
  NoSchemaIntrospectionCustomRule,
  specifiedRules,
  type DocumentNode,
  type GraphQLSchema,
  type ParseOptions,
  type ValidationContext,
  type ValidationRule,
} from 'graphql';
import {
  DEFAULT_LIMITS,
  fragmentsOf,
  measureOperation,
  queryLimitsRule,
  type QueryLimits,
} from './limits';

/**
 * The parser stops after this many tokens, before building a tree: no document can cost more
 * than this much parsing and validation. `getIntrospectionQuery()` is about 160 tokens, the
 * dashboard's largest query under 100.
 */
export const MAX_QUERY_TOKENS = 2000;

/** How every GraphQL document is parsed, over HTTP (Apollo) and the websocket alike. */
export const GRAPHQL_PARSE_OPTIONS: ParseOptions = { maxTokens: MAX_QUERY_TOKENS };

/**
 * graphql-js's rule reports errors without a code; the API's error shape wants one, the same
 * as every other refused document (INVALID_PARAMETER).
 */
function withInvalidParameterCode(rule: ValidationRule): ValidationRule {
  return (context: ValidationContext) =>
    rule(
      Object.create(context, {
        reportError: {
          value: (error: GraphQLError) =>
            context.reportError(
              new GraphQLError(error.message, {
                nodes: error.nodes,
                extensions: { code: 'INVALID_PARAMETER' },
              }),
            ),
        },
      }) as ValidationContext,
    );
}

/**
 * PostgreSQL text cannot hold NUL: a string literal carrying one (`"\u0000"`) would pass
 * validation and fail in the database as an internal error.
 */
const noNulStrings: ValidationRule = (context) => ({
  StringValue(node) {
    if (node.value.includes('\u0000')) {
      context.reportError(
        new GraphQLError('String values must not contain NUL characters', {
          nodes: [node],
          extensions: { code: 'INVALID_PARAMETER' },
        }),
      );
    }
  },
});

/** Introspection refused in production, on both transports (docs/api.md, "GraphQL"). */
const noIntrospection = withInvalidParameterCode(NoSchemaIntrospectionCustomRule);

/**
 * The gateway's rules beyond graphql-js's specified ones: what Apollo's `validationRules`
 * takes (Apollo adds `specifiedRules` itself).
 */
export function gatewayExtraRules(options: { production: boolean }): ValidationRule[] {
  return [
    ...(options.production ? [noIntrospection] : []),
    noNulStrings,
    queryLimitsRule(DEFAULT_LIMITS),
  ];
}

/** Every rule a document must pass, for code that calls graphql-js `validate` (the websocket). */
export function gatewayValidationRules(options: { production: boolean }): ValidationRule[] {
  return [...specifiedRules, ...gatewayExtraRules(options)];
}

/**
 * The cost of a validated operation with the request's variables (page sizes given as
 * variables count as 1 during validation, which is cached per document). Null when within
 * the limits; call it before executing.
 */
export function operationLimitError(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>> | null | undefined,
  limits: QueryLimits = DEFAULT_LIMITS,
): GraphQLError | null {
  const operations = document.definitions.filter((d) => d.kind === 'OperationDefinition');
  const operation = operationName
    ? operations.find((o) => o.name?.value === operationName)
    : operations.length === 1
      ? operations[0]
      : undefined;
  // No such operation: graphql-js refuses the request itself.
  if (!operation) return null;
  return measureOperation(schema, operation, fragmentsOf(document), limits, {
    values: variables ?? {},
  });
}
