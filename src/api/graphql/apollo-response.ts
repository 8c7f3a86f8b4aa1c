import { GraphQLError, type ExecutionResult, type GraphQLFormattedError } from 'graphql';

/** Apollo's `formatError` option: the gateway's is `formatGraphQLError(log)`. */
export type FormatError = (
  formatted: GraphQLFormattedError,
  error: unknown,
) => GraphQLFormattedError;

/** An HTTP answer as Apollo would send it for one executed operation. */
export interface ApolloShapedAnswer {
  /** Absent: 200. */
  status?: number;
  /** Headers the errors asked for (`extensions.http.headers`). */
  headers: Map<string, string>;
  body: string;
}

const isPartialHttpHead = (x: unknown): x is { status?: number; headers?: Map<string, string> } =>
  !!x &&
  typeof x === 'object' &&
  (!('status' in x) || typeof x.status === 'number') &&
  (!('headers' in x) || x.headers instanceof Map);

/**
 * The answer Apollo Server (5.x, `requestPipeline` and `runHttpQuery`) sends for the result of
 * an operation it executed itself, for the hot path, which executed it instead: each error
 * normalised as Apollo's `normalizeAndFormatErrors` does (a GraphQLError, `extensions.code`
 * INTERNAL_SERVER_ERROR when none, `extensions.http` taken out into the response's status and
 * headers) and passed to the same `formatError`; a formatter that throws gives Apollo's masked
 * error; the fields in Apollo's order (`errors`, `data`, `extensions`) and its trailing newline.
 * Apollo keeps this code to itself (its package exports none of it), so it is repeated here;
 * test/e2e/graphql-hot-queries.e2e.test.ts holds the two byte for byte equal, errors included.
 * What Apollo does beyond this is not needed here: the hot path coerces variables before
 * executing (so no error is a variable's, which Apollo would make BAD_USER_INPUT or a 400) and
 * the gateway's plugins have no error hooks.
 */
export function apolloShapedAnswer(
  result: ExecutionResult,
  formatError: FormatError,
  executionFailed = false,
): ApolloShapedAnswer {
  const head: { status?: number; headers: Map<string, string> } = { headers: new Map() };
  const enrich = (error: unknown): GraphQLFormattedError => {
    const graphqlError =
      error instanceof GraphQLError
        ? error
        : error instanceof Error
          ? new GraphQLError(error.message, { originalError: error })
          : new GraphQLError(`Unexpected error value: ${String(error)}`);
    const extensions: Record<string, unknown> = {
      ...graphqlError.extensions,
      code: graphqlError.extensions.code ?? 'INTERNAL_SERVER_ERROR',
    };
    if (isPartialHttpHead(extensions.http)) {
      if (extensions.http.status) head.status = extensions.http.status;
      for (const [name, value] of extensions.http.headers ?? []) head.headers.set(name, value);
      delete extensions.http;
    }
    return { ...graphqlError.toJSON(), extensions };
  };
  const errors = result.errors?.map((error) => {
    try {
      return formatError(enrich(error), error);
    } catch {
      return { message: 'Internal server error', extensions: { code: 'INTERNAL_SERVER_ERROR' } };
    }
  });
  // An execution that threw answers 500 unless an error chose; so does one without data.
  if (executionFailed && !head.status) head.status = 500;
  if (!executionFailed && errors?.length && result.data === undefined && !head.status) {
    head.status = 400;
  }
  const body = executionFailed
    ? { errors }
    : { errors, data: result.data, extensions: result.extensions };
  return { ...head, body: `${JSON.stringify(body)}\n` };
}
