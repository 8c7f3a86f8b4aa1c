import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENT_REPLAYED_HEADER } from '../idempotency';

/**
 * The headers the gateway sends and reads, declared once as named components; the document's
 * operations refer to them (`completeOperations` decides which apply to which response).
 */
export const HEADER_COMPONENTS = {
  'X-Request-Id': {
    description:
      'On every response: the request id the logs carry. A well-formed X-Request-Id sent by the ' +
      'client is used; otherwise one is generated.',
    schema: { type: 'string' },
    example: 'req_01JDQX8Z6M4Y3W2V1T0S9R8Q7P',
  },
  'RateLimit-Limit': {
    description: 'Requests allowed per minute for this key (RATE_LIMIT_PER_MINUTE).',
    schema: { type: 'integer' },
    example: 100,
  },
  'RateLimit-Remaining': {
    description: 'Requests left in the current one-minute window, counted across all gateways.',
    schema: { type: 'integer' },
    example: 99,
  },
  'RateLimit-Reset': {
    description: 'Seconds until the current window ends.',
    schema: { type: 'integer' },
    example: 42,
  },
  'Retry-After': {
    description: 'Seconds to wait before retrying.',
    schema: { type: 'integer' },
    example: 42,
  },
  'Idempotent-Replayed': {
    description:
      '`true` when this is the stored first response to the same Idempotency-Key, replayed.',
    schema: { type: 'string', enum: ['true'] },
    example: 'true',
  },
} as const;

export type HeaderName = keyof typeof HEADER_COMPONENTS;

/** Checked against the gateway's own constant, so the document and the code name one header. */
if (IDEMPOTENT_REPLAYED_HEADER !== 'Idempotent-Replayed') {
  throw new Error('IDEMPOTENT_REPLAYED_HEADER changed: update HEADER_COMPONENTS');
}

export const IDEMPOTENCY_KEY_PARAMETER = {
  name: 'Idempotency-Key',
  in: 'header',
  required: false,
  description:
    'Any 1-255 printable ASCII characters, unique per operation you mean. The first response ' +
    '(status and body) is stored for 24 h and replayed, with `Idempotent-Replayed: true`, to a ' +
    'repeat with the same key and body; the same key with another body, or while the first is ' +
    'still running, is 409 `idempotency_conflict`. Secret keys only.',
  schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
  example: 'order-1234-onramp',
} as const;

// The lower-case form is what Fastify reads; the document shows the conventional spelling.
if (IDEMPOTENCY_KEY_HEADER !== IDEMPOTENCY_KEY_PARAMETER.name.toLowerCase()) {
  throw new Error('IDEMPOTENCY_KEY_HEADER changed: update IDEMPOTENCY_KEY_PARAMETER');
}

export const REQUEST_ID_PARAMETER = {
  name: 'X-Request-Id',
  in: 'header',
  required: false,
  description: 'Your own request id (1-128 of A-Z a-z 0-9 . _ : -), echoed and logged.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9._:-]{1,128}$' },
  example: 'checkout-7f3a',
} as const;

/** A `$ref` to a named header component. */
export const headerRef = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });
