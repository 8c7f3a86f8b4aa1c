export interface OperationExample {
  /** Examples of path and query parameters, by parameter name. */
  parameters?: Record<string, unknown>;
  request?: unknown;
  /** The success responses' examples, by status. */
  responses: Record<string, unknown>;
}
