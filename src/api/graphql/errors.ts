import { GraphQLError, type GraphQLFormattedError } from 'graphql';
import { unwrapResolverError } from '@apollo/server/errors';
import type { FastifyBaseLogger } from 'fastify';
import { DomainError, ErrorCode, graphqlCodeOf } from '../../domain/errors';
import { mapError } from '../error-mapping';

/** Apollo's own request-level failures are all the client's fault: INVALID_PARAMETER. */
const CLIENT_ERROR_CODES = new Set([
  'GRAPHQL_PARSE_FAILED',
  'GRAPHQL_VALIDATION_FAILED',
  'BAD_USER_INPUT',
  'BAD_REQUEST',
  'OPERATION_RESOLUTION_FAILURE',
  'PERSISTED_QUERY_NOT_FOUND',
  'PERSISTED_QUERY_NOT_SUPPORTED',
]);

/**
 * The one place GraphQL errors take their shape: `extensions.code` is the API's ErrorCode in
 * UPPER_SNAKE case; anything unexpected is masked and logged.
 */
export function formatGraphQLError(log: FastifyBaseLogger) {
  return (formatted: GraphQLFormattedError, error: unknown): GraphQLFormattedError => {
    const original = unwrapResolverError(error);
    const base = {
      message: formatted.message,
      locations: formatted.locations,
      path: formatted.path,
    };
    if (original instanceof DomainError) {
      return {
        ...base,
        message: original.message,
        extensions: {
          code: graphqlCodeOf(original.code),
          ...(original.details ? { details: original.details } : {}),
        },
      };
    }
    const code = formatted.extensions?.code;
    if (typeof code === 'string' && CLIENT_ERROR_CODES.has(code)) {
      return {
        ...base,
        extensions: { code: graphqlCodeOf(ErrorCode.InvalidParameter), reason: code },
      };
    }
    if (isCodelessRequestRefusal(original)) {
      // Apollo refuses a malformed persisted query (its hash not the document's, a version
      // other than 1) with a 400 and no code: the client's fault, not an internal error.
      return {
        ...base,
        extensions: { code: graphqlCodeOf(ErrorCode.InvalidParameter), reason: 'BAD_REQUEST' },
      };
    }
    if (code === 'INVALID_PARAMETER') return { ...base, extensions: { code } };
    const mapped = mapError(original);
    if (mapped.unexpected) log.error({ err: original }, 'unexpected GraphQL error');
    return { ...base, message: mapped.message, extensions: { code: graphqlCodeOf(mapped.code) } };
  };
}

/** An error Apollo raised itself (no cause inside) with a 4xx status and no code of its own. */
function isCodelessRequestRefusal(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.originalError || error.extensions.code) {
    return false;
  }
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === 'number' && status >= 400 && status < 500;
}

export function graphqlErrorBody(code: ErrorCode, message: string) {
  return { errors: [{ message, extensions: { code: graphqlCodeOf(code) } }] };
}
