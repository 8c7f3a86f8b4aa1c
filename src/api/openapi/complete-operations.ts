import { errorDescription, errorExamples } from './error-examples';
import { OPERATION_EXAMPLES } from './examples';
import { headerRef, type HeaderName } from './headers';

/** The parts of an OpenAPI operation this module fills in (the rest passes through). */
interface Media {
  schema?: unknown;
  example?: unknown;
  examples?: Record<string, { value: unknown }>;
}
interface Response {
  description?: string;
  headers?: Record<string, unknown>;
  content?: Record<string, Media>;
}
interface Parameter {
  name?: string;
  in?: string;
  example?: unknown;
  $ref?: string;
}
export interface Operation {
  operationId?: string;
  security?: unknown[];
  parameters?: Parameter[];
  requestBody?: { content?: Record<string, Media> };
  responses?: Record<string, Response>;
}

const SUCCESS_TEXT: Record<string, string> = {
  '200': 'OK',
  '201': 'Created',
  '202': 'Accepted: the work continues after this answer',
};

/** Which of the gateway's headers a response carries (docs/api.md, "Errors" and "Idempotency"). */
function headersOf(status: number, secured: boolean, idempotent: boolean): HeaderName[] {
  const names: HeaderName[] = ['X-Request-Id'];
  // The per-key limit counts authenticated requests only: public routes, and a request whose
  // credential is refused (401), answer none of these.
  if (secured && status !== 401) {
    names.push('RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset');
  }
  if (status === 429 || status === 503) names.push('Retry-After');
  // Answers under 500 are stored and replayed for a repeated Idempotency-Key.
  if (idempotent && status < 500) names.push('Idempotent-Replayed');
  return names;
}

function completeResponses(operation: Operation, secured: boolean, idempotent: boolean): void {
  const successExamples = OPERATION_EXAMPLES[operation.operationId ?? '']?.responses ?? {};
  for (const [status, response] of Object.entries(operation.responses ?? {})) {
    const code = Number(status);
    // A report answers CSV: its example goes on that media type.
    const media = response.content?.['application/json'] ?? response.content?.['text/csv'];
    if (status in successExamples) {
      response.description = SUCCESS_TEXT[status] ?? 'Unavailable';
      if (media) media.example = successExamples[status];
    } else {
      response.description = errorDescription(code, operation.operationId ?? '');
      if (media) media.examples = errorExamples(code, operation.operationId ?? '');
    }
    response.headers = Object.fromEntries(
      headersOf(code, secured, idempotent).map((name) => [name, headerRef(name)]),
    );
  }
}

/**
 * Fills in what the route schemas do not say: per-operation examples, the headers of every
 * response, the Idempotency-Key and X-Request-Id request headers, and error descriptions and
 * examples derived from the one status table. Mutates and returns `operation`.
 */
export function completeOperation(method: string, operation: Operation): Operation {
  const secured = (operation.security ?? []).length > 0;
  // The gateway honours Idempotency-Key on every POST made with a secret key.
  const idempotent = method === 'post' && secured;
  const examples = OPERATION_EXAMPLES[operation.operationId ?? ''];
  for (const parameter of operation.parameters ?? []) {
    const value = parameter.name === undefined ? undefined : examples?.parameters?.[parameter.name];
    if (value !== undefined) parameter.example = value;
  }
  const extra: Parameter[] = [{ $ref: '#/components/parameters/XRequestId' }];
  if (idempotent) extra.unshift({ $ref: '#/components/parameters/IdempotencyKey' });
  operation.parameters = [...(operation.parameters ?? []), ...extra];
  const body = operation.requestBody?.content?.['application/json'];
  if (body && examples?.request !== undefined) body.example = examples.request;
  completeResponses(operation, secured, idempotent);
  return operation;
}
