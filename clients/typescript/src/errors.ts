import type { ApiErrorBody, ApiErrorCode } from './types';

/**
 * An error answer of the API, thrown by `unwrap`: the body's `code`, `message` and `details`,
 * the HTTP status, and the `X-Request-Id` to quote to the operator.
 */
export class OnrampApiError extends Error {
  readonly code: ApiErrorCode;
  readonly details: ApiErrorBody['error']['details'];
  readonly requestId: string | null;

  constructor(
    readonly status: number,
    readonly body: ApiErrorBody,
    headers?: Headers,
  ) {
    super(`${body.error.code}: ${body.error.message}`);
    this.name = 'OnrampApiError';
    this.code = body.error.code;
    this.details = body.error.details;
    this.requestId = headers?.get('x-request-id') ?? null;
  }
}

/** What every client call resolves to (openapi-fetch's result: `data` or `error`). */
export interface ApiResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** True for a body in the API's error shape (a proxy in the way may answer something else). */
export function isApiErrorBody(body: unknown): body is ApiErrorBody {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  return typeof error?.code === 'string' && typeof error.message === 'string';
}

/**
 * The data of a successful call, or an `OnrampApiError` thrown for an error answer: for code
 * that would rather `try/catch` than check `error` after every call.
 */
export async function unwrap<Result extends ApiResult>(
  call: Promise<Result> | Result,
): Promise<Exclude<Result['data'], undefined>> {
  const result = await call;
  if (result.error === undefined) return result.data as Exclude<Result['data'], undefined>;
  const { response } = result;
  const body = isApiErrorBody(result.error)
    ? result.error
    : ({
        error: {
          code: 'internal_error',
          message: `HTTP ${response.status} without an API error body`,
        },
      } as ApiErrorBody);
  throw new OnrampApiError(response.status, body, response.headers);
}
