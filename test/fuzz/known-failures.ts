import type { Answer, SentRequest, Violation } from './support/oracle';

/**
 * Failures of today's code that other work on issue 17 fixes (each entry names its area). A
 * violation that matches an entry is counted and printed, not failed. Empty this list as the
 * fixes land: nothing else may be excluded, and each matcher is kept as narrow as the case.
 */
export interface KnownFailure {
  id: string;
  area: string;
  description: string;
  matches(sent: SentRequest, answer: Answer | undefined, violation: Violation): boolean;
}

/** Fastify's default clientErrorHandler: Node's parser refused the bytes (bad URL bytes, headers over 16 KiB). */
const FASTIFY_CLIENT_ERROR =
  /^\{"error":"(Bad Request|Request Header Fields Too Large)","message":"(Client Error|Exceeded maximum allowed HTTP header size)","statusCode":(400|431)\}$/;

/** How deep `[`/`{` nest in a body text (strings skipped). */
export function nestingDepth(body: string | Buffer | undefined): number {
  const text = body?.toString('latin1') ?? '';
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text[i];
    if (inString) {
      if (c === '\\') i += 1;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '[' || c === '{') deepest = Math.max(deepest, (depth += 1));
    else if (c === ']' || c === '}') depth -= 1;
  }
  return deepest;
}

function hasBadPercentEncoding(path: string): boolean {
  try {
    decodeURIComponent(path);
    return path.length > 200;
  } catch {
    return true;
  }
}

export const KNOWN_FAILURES: KnownFailure[] = [
  {
    id: 'fastify-client-error-body',
    area: 'HTTP edge (server.ts: clientErrorHandler)',
    description:
      "Bytes Node's parser refuses (raw non-ASCII in the URL, a request line or headers over 16 KiB) answer Fastify's own JSON body, not the error shape, without X-Request-Id and without Connection: close",
    matches: (_sent, answer, violation) =>
      ['error-shape', 'x-request-id'].includes(violation.rule) &&
      answer !== undefined &&
      FASTIFY_CLIENT_ERROR.test(answer.text),
  },
  {
    id: 'fastify-client-error-body-on-head',
    area: 'HTTP edge (server.ts: clientErrorHandler)',
    description:
      'The same answer to a HEAD request (raw non-ASCII in the URL, or a request line over 16 KiB) carries a body, which a HEAD client cannot frame (Parse Error: Expected HTTP/)',
    matches: (sent, _answer, violation) =>
      violation.rule === 'no-answer' &&
      sent.method === 'HEAD' &&
      (sent.path.length > 16_000 || /[^\x21-\x7e]/.test(sent.path)) &&
      violation.detail.includes('Expected HTTP/'),
  },
  {
    id: 'fastify-bad-url',
    area: 'HTTP edge (server.ts: framework errors)',
    description:
      "A malformed percent-encoding (FST_ERR_BAD_URL, 400) or a path parameter over 200 characters (FST_ERR_MAX_PARAM_LENGTH, 414) answers Fastify's body without X-Request-Id",
    matches: (_sent, answer, violation) =>
      ['error-shape', 'x-request-id'].includes(violation.rule) &&
      answer !== undefined &&
      ((answer.status === 400 && answer.text.includes('"code":"FST_ERR_BAD_URL"')) ||
        (answer.status === 414 && answer.text.includes('"code":"FST_ERR_MAX_PARAM_LENGTH"'))),
  },
  {
    id: 'fastify-bad-url-on-head',
    area: 'HTTP edge (server.ts: framework errors)',
    description: 'The same refusal of a HEAD request (no body to recognise): no X-Request-Id',
    matches: (sent, answer, violation) =>
      violation.rule === 'x-request-id' &&
      sent.method === 'HEAD' &&
      (answer?.status === 400 || answer?.status === 414) &&
      hasBadPercentEncoding(sent.path.split('?')[0]),
  },
  {
    id: 'deep-json-500',
    area: 'HTTP edge (JSON nesting limit)',
    description: 'A JSON body nested thousands deep answers 500 internal_error',
    matches: (sent, answer, violation) =>
      violation.rule === '5xx' && answer?.status === 500 && nestingDepth(sent.body) >= 1000,
  },
  {
    id: 'ws-runs-queries-and-mutations',
    area: 'websocket (subscriptions only)',
    description:
      'A query or mutation subscribed over graphql-ws executes and answers data, outside the HTTP limits, idempotency and rate limit',
    matches: (sent, _answer, violation) =>
      sent.transport === 'ws' && violation.rule === 'ws-not-subscription',
  },
  {
    id: 'ws-long-id-closes-4500',
    area: 'websocket (src/api/ws.ts; graphql-ws close reasons)',
    description:
      'A second subscribe with an id of 300 characters: graphql-ws closes 4409 with a reason that names the id, the ws library refuses a reason over 123 bytes, and the socket is closed 4500 Internal Server Error instead',
    matches: (sent, _answer, violation) =>
      sent.transport === 'ws' &&
      violation.rule === 'ws-close' &&
      violation.detail.startsWith('closed 4500 The message must not be greater than 123 bytes') &&
      /"id":"x{300}"/.test(sent.body?.toString() ?? ''),
  },
  {
    id: 'graphql-deep-document-stack-overflow',
    area: 'GraphQL limits (parser token/depth limit), HTTP and websocket',
    description:
      'A document nesting a field thousands deep ({ merchant { merchant ...) overflows the stack: POST /graphql answers 500 INTERNAL_ERROR, and a socket is closed 4500 "Maximum call stack size exceeded"',
    matches: (sent, answer, violation) =>
      /(\{ merchant ){1000}/.test(sent.body?.toString() ?? '') &&
      ((sent.transport === 'graphql' && violation.rule === '5xx' && answer?.status === 500) ||
        (sent.transport === 'ws' &&
          violation.rule === 'ws-close' &&
          violation.detail === 'closed 4500 Maximum call stack size exceeded')),
  },
];

export function knownFailureOf(
  sent: SentRequest,
  answer: Answer | undefined,
  violation: Violation,
): KnownFailure | undefined {
  // FUZZ_IGNORE_KNOWN=true: every entry off, to see which fixes have landed (and to shrink one).
  if (process.env.FUZZ_IGNORE_KNOWN === 'true') return undefined;
  return KNOWN_FAILURES.find((known) => known.matches(sent, answer, violation));
}
