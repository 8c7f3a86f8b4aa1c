import { ErrorCode, httpStatusOf } from '../../../src/domain/errors';

const REST_CODES = new Set<string>(Object.values(ErrorCode));
const GRAPHQL_CODES = new Set<string>(Object.values(ErrorCode).map((c) => c.toUpperCase()));

/**
 * No answer may take this long, even with 16 requests in flight on a loaded 2-core machine:
 * a request that does is one that slows the others.
 */
export const SLOW_ANSWER_MS = 5_000;

/** What a fuzzer sent, as far as the oracle needs it (for messages and the echo rule). */
export interface SentRequest {
  transport: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
  /** Which credential was used: responses to anything but B's own may not show B's data. */
  credential: string;
  /** GraphQL: the document and operation asked for (the hash-only forms do not carry it). */
  document?: string;
  operationName?: string;
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  ms: number;
}

export interface Violation {
  rule: string;
  detail: string;
}

/** `{"error": {"code", "message", "details"?}}`, exactly, with the code's status. */
export function restErrorShapeViolation(status: number, text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (!isObject(body) || Object.keys(body).join() !== 'error' || !isObject(body.error)) {
    return `not {"error": {...}}: ${text.slice(0, 200)}`;
  }
  const error = body.error;
  const extra = Object.keys(error).filter((k) => !['code', 'message', 'details'].includes(k));
  if (extra.length > 0) return `unknown error fields ${extra.join(', ')}`;
  if (typeof error.code !== 'string' || !REST_CODES.has(error.code)) {
    return `unknown code ${JSON.stringify(error.code)}`;
  }
  if (typeof error.message !== 'string' || error.message.length === 0) return 'no message';
  if ('details' in error && typeof error.details !== 'string') return 'details not a string';
  const expected = httpStatusOf[error.code as ErrorCode];
  if (expected !== status) return `code ${error.code} is ${expected}, answered ${status}`;
  return undefined;
}

/** A GraphQL answer: `errors[]`, if any, each with a message and a known UPPER_SNAKE code. */
export function graphqlShapeViolation(text: string): string | undefined {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `not JSON: ${text.slice(0, 200)}`;
  }
  if (!isObject(body)) return `not an object: ${text.slice(0, 200)}`;
  if (body.errors === undefined)
    return body.data === undefined ? 'neither data nor errors' : undefined;
  if (!Array.isArray(body.errors) || body.errors.length === 0) return 'errors is not a list';
  for (const error of body.errors) {
    if (!isObject(error) || typeof error.message !== 'string') return 'an error has no message';
    const code = isObject(error.extensions) ? error.extensions.code : undefined;
    if (typeof code !== 'string' || !GRAPHQL_CODES.has(code)) {
      return `unknown extensions.code ${JSON.stringify(code)} (${String(error.message).slice(0, 120)})`;
    }
    // GraphQL answers 200 with errors: an internal error in them is the 500 of REST.
    if (code === 'INTERNAL_ERROR') return `internal error (${String(error.message).slice(0, 120)})`;
  }
  return undefined;
}

/**
 * The values of `secrets` that the answer shows and the request did not itself contain (an
 * error message that echoes the id the caller sent is not a leak). Case-insensitive: addresses
 * come back checksummed or not.
 */
export function leakedSecrets(secrets: string[], sent: SentRequest, answer: string): string[] {
  const shown = answer.toLowerCase();
  const asked = requestText(sent);
  // Whole tokens only: account numbers are ten digits, and "1.0000000028" in /metrics is not one.
  const token = (s: string) =>
    new RegExp(`(?<![\\w.])${s.toLowerCase().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?!\\w)`);
  return secrets.filter((s) => token(s).test(shown) && !asked.includes(s.toLowerCase()));
}

/**
 * The other merchant's values a fuzzer itself has sent in a request that may have stored them
 * (a key named after B's merchant id, say). A's data then holds them, and showing them back to
 * A later is an echo of what A wrote, not a leak; the per-request echo rule cannot see that, as
 * the value comes back in another request's answer.
 */
export class PlantedValues {
  private readonly planted = new Set<string>();

  /** Notes which of `secrets` this request carries; call it before any answer is checked. */
  note(sent: SentRequest, secrets: readonly string[]): void {
    if (sent.method === 'GET' || sent.method === 'HEAD') return;
    const text = requestText(sent);
    for (const secret of secrets) if (text.includes(secret.toLowerCase())) this.planted.add(secret);
  }

  /** `secrets` without those a request has planted. */
  without(secrets: readonly string[]): string[] {
    return secrets.filter((secret) => !this.planted.has(secret));
  }
}

function requestText(sent: SentRequest): string {
  const raw = [sent.path, JSON.stringify(sent.headers), sent.body?.toString('latin1') ?? ''].join(
    '\n',
  );
  // What the server decoded (percent-encoding, UTF-8) counts as sent too.
  return `${raw}\n${safeDecode(raw)}\n${Buffer.from(raw, 'latin1').toString('utf8')}`.toLowerCase();
}

function safeDecode(text: string): string {
  return text.replace(/(%[0-9a-fA-F]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/** The checks every HTTP answer gets, GraphQL or REST. */
/**
 * Node's parser refused a head over its size limit before any route was read. Its answer
 * names the path only when the request line arrived in the same read as the overflow; a long
 * GET /graphql URL split over two reads gives the REST shape (seen on a loaded CI machine).
 * As for the raw-bytes fuzz, either shape is right there, and this one only.
 */
function parserRefusedHead(answer: Answer): boolean {
  if (answer.status !== 400 || restErrorShapeViolation(answer.status, answer.text)) return false;
  const { error } = JSON.parse(answer.text) as { error: { code: string; message: string } };
  return error.code === 'invalid_parameter' && error.message === 'Request headers are too large';
}

export function checkHttpAnswer(
  sent: SentRequest,
  answer: Answer,
  secrets: string[],
  graphqlPath: boolean,
): Violation[] {
  const violations: Violation[] = [];
  if (answer.status >= 500)
    violations.push({ rule: '5xx', detail: `${answer.status} ${answer.text.slice(0, 300)}` });
  if (answer.ms > SLOW_ANSWER_MS) {
    violations.push({ rule: 'slow', detail: `${answer.ms} ms (${answer.status})` });
  }
  if (!answer.headers['x-request-id']) violations.push({ rule: 'x-request-id', detail: 'missing' });
  if (answer.status >= 400 && sent.method !== 'HEAD') {
    const shape = graphqlPath
      ? !parserRefusedHead(answer) && graphqlShapeViolation(answer.text)
      : restErrorShapeViolation(answer.status, answer.text);
    if (shape) violations.push({ rule: 'error-shape', detail: `${answer.status}: ${shape}` });
  } else if (graphqlPath && answer.status === 200 && sent.method !== 'HEAD') {
    const shape = graphqlShapeViolation(answer.text);
    if (shape) violations.push({ rule: 'error-shape', detail: shape });
  }
  const leaked = leakedSecrets(secrets, sent, answer.text);
  if (leaked.length > 0)
    violations.push({ rule: 'other-merchant-data', detail: leaked.join(', ') });
  return violations;
}

export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
