import { classifyPgFailure } from '../db/pg-failures';
import { DomainError, ErrorCode, httpStatusOf } from '../domain/errors';

export interface MappedError {
  code: ErrorCode;
  status: number;
  message: string;
  details?: string;
  /** Unexpected: log with the stack and mask the message. */
  unexpected: boolean;
}

interface FastifyLikeError {
  code?: string;
  statusCode?: number;
  message?: string;
  validation?: Array<{
    keyword: string;
    instancePath: string;
    params: Record<string, unknown>;
    message?: string;
  }>;
  validationContext?: string;
}

/**
 * A database failure that reached a transport (pg-failures.ts sorts it). A unique violation
 * is a request that raced a concurrent one changing the same thing and lost: 409, the
 * contract's one conflict code, whose message names no table or constraint; logged with its
 * stack, as no code path expected the race. Lost races still lost after retryOnConflict's
 * reruns, lock timeouts and an unreachable database: 503, retry shortly.
 */
function mapDatabaseFailure(error: unknown): MappedError | null {
  switch (classifyPgFailure(error)?.kind) {
    case 'unique_violation':
      return {
        ...known(
          ErrorCode.IdempotencyConflict,
          'The request conflicts with a concurrent change to the same resource; nothing was changed',
        ),
        unexpected: true,
      };
    case 'serialization':
    case 'deadlock':
    case 'exclusion':
    case 'lock_timeout':
    case 'statement_timeout':
    case 'unavailable':
      return known(ErrorCode.ServiceUnavailable, 'A dependency is unavailable; retry shortly');
    default:
      return null;
  }
}

function parameterName(error: FastifyLikeError): string {
  const first = error.validation?.[0];
  if (!first) return 'request';
  const missing = first.params?.missingProperty as string | undefined;
  const extra = first.params?.additionalProperty as string | undefined;
  const path = first.instancePath.replace(/^\//, '').replace(/\//g, '.');
  const leaf = missing ?? extra;
  return [path, leaf].filter(Boolean).join('.') || (error.validationContext ?? 'request');
}

function mapValidation(error: FastifyLikeError): MappedError {
  const first = error.validation![0];
  const name = parameterName(error);
  if (first.keyword === 'required') {
    return known(ErrorCode.MissingParameter, `Missing required parameter: ${name}`);
  }
  if (first.keyword === 'additionalProperties') {
    return known(ErrorCode.InvalidParameter, `Unknown parameter: ${name}`);
  }
  const allowed = first.params?.allowedValues as unknown[] | undefined;
  const why = allowed ? `must be one of ${allowed.join(', ')}` : (first.message ?? 'is invalid');
  return known(ErrorCode.InvalidParameter, `Invalid parameter ${name}: ${why}`);
}

function known(code: ErrorCode, message: string, details?: string, status?: number): MappedError {
  return { code, status: status ?? httpStatusOf[code], message, details, unexpected: false };
}

/** Maps anything thrown while serving a request to the API error model. Used by every transport. */
export function mapError(error: unknown): MappedError {
  if (error instanceof DomainError) {
    return known(error.code, error.message, error.details, error.httpStatus);
  }
  const e = (error ?? {}) as FastifyLikeError;
  if (e.validation && e.validation.length > 0) return mapValidation(e);
  switch (e.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return known(ErrorCode.PayloadTooLarge, 'Request body is larger than 64 KiB');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return known(ErrorCode.InvalidParameter, 'Content-Type must be application/json');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return known(ErrorCode.InvalidParameter, 'Request body is empty; send a JSON object');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return known(ErrorCode.InvalidParameter, 'Request body is not valid JSON');
  }
  if (error instanceof SyntaxError && e.statusCode === 400) {
    return known(ErrorCode.InvalidParameter, 'Request body is not valid JSON');
  }
  const database = mapDatabaseFailure(error);
  if (database) return database;
  if (typeof e.statusCode === 'number' && e.statusCode >= 400 && e.statusCode < 500) {
    if (e.statusCode === 404) return known(ErrorCode.NotFound, 'Not found');
    if (e.statusCode === 413)
      return known(ErrorCode.PayloadTooLarge, 'Request body is larger than 64 KiB');
    return known(ErrorCode.InvalidParameter, e.message ?? 'Invalid request');
  }
  return {
    code: ErrorCode.InternalError,
    status: 500,
    message: 'An unexpected error occurred; quote the request id when contacting support',
    unexpected: true,
  };
}
