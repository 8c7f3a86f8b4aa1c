/**
 * One line for the report: viem errors carry a `shortMessage` and the node's `details` (the
 * rest is noise); the root cause (ECONNREFUSED, a refused port, ...) sits down the cause chain.
 */
export function chainErrorMessage(error: unknown): string {
  if (!isErrorLike(error)) return String(error);
  let message = error.shortMessage ?? error.message;
  if (error.details && !message.includes(error.details)) message = `${message} ${error.details}`;
  let root: ErrorLike | null = null;
  for (let cause = error.cause, depth = 0; isErrorLike(cause) && depth < 5; depth += 1) {
    root = cause;
    cause = cause.cause;
  }
  const why = root ? (typeof root.code === 'string' ? root.code : root.message) : '';
  return why && !message.includes(why) ? `${message} (${why})` : message;
}

interface ErrorLike {
  message: string;
  shortMessage?: string;
  details?: string;
  code?: unknown;
  cause?: unknown;
}

/** Not `instanceof Error`: errors from another realm (Node's fetch under jest) fail that. */
function isErrorLike(value: unknown): value is ErrorLike {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { message?: unknown }).message === 'string'
  );
}
