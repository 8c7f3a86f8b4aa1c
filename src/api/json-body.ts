import type { FastifyInstance } from 'fastify';
import { DomainError, ErrorCode } from '../domain/errors';

/**
 * Deepest nesting of objects and arrays a JSON body may have. Our largest request body nests
 * 4 levels; GraphQL variables a few more. Past this, the validators and the NUL-character walk
 * (both recursive) would see unbounded depth: at some thousands of levels they overflow the
 * stack, which answered 500.
 */
export const MAX_JSON_DEPTH = 32;

const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/**
 * The deepest nesting in a JSON text, found by one loop over its characters (no recursion, no
 * parse): brackets inside strings do not count. It stops as soon as `limit` is passed, so a
 * hostile body costs at most one pass. Malformed text is left to the parser to refuse.
 */
export function jsonDepthExceeds(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i += 1) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i += 1;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth += 1;
      if (depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth -= 1;
    }
  }
  return false;
}

export function tooDeep(): DomainError {
  return new DomainError(
    ErrorCode.InvalidParameter,
    `Request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`,
  );
}

/**
 * Replaces the `application/json` parser with Fastify's own (prototype-poisoning protection
 * included) behind the depth check, so nothing after it ever holds a deeper value.
 */
export function parseJsonWithDepthLimit(app: FastifyInstance): void {
  const parse = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (jsonDepthExceeds(text)) {
      done(tooDeep(), undefined);
      return;
    }
    parse(request, text, done);
  });
}
