import { invalidParameter } from '../domain/errors';

/** The path of the first string holding a NUL character, at any depth; null when none. */
export function pathOfNul(value: unknown, path: string): string | null {
  if (typeof value === 'string') return value.includes('\u0000') ? path : null;
  // Raw bodies (signed bank notifications) are checked by their own route after parsing.
  if (Buffer.isBuffer(value)) return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const found = pathOfNul(value[i], `${path}[${i}]`);
      if (found) return found;
    }
    return null;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const itemPath = path ? `${path}.${key}` : key;
      const found = pathOfKey(key, path) ?? pathOfNul(item, itemPath);
      if (found) return found;
    }
  }
  return null;
}

const pathOfKey = (key: string, path: string): string | null =>
  key.includes('\u0000') ? `${path || 'body'} (a field name)` : null;

/**
 * PostgreSQL text cannot hold NUL, so a string carrying one would pass validation and then
 * fail in the database as a 500. A request with one anywhere (body fields and names, query
 * parameters, path parameters) is refused up front instead: 400 invalid_parameter.
 */
export function refuseNulCharacters(request: {
  body?: unknown;
  query?: unknown;
  params?: unknown;
}): void {
  const path =
    (typeof request.body === 'string'
      ? pathOfNul(request.body, 'body')
      : pathOfNul(request.body, '')) ??
    pathOfNul(request.query, '') ??
    pathOfNul(request.params, '');
  if (path) throw invalidParameter(path, 'must not contain NUL characters');
}

/**
 * The same refusal for values that did not come through a JSON body (GraphQL variables over
 * the websocket or in a GET query string): a NUL anywhere, or nesting deeper than `maxDepth`,
 * found without recursion (the value may nest as deep as its message allows).
 */
export function hostileVariables(value: unknown, maxDepth = 32): string | null {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (typeof item === 'string') {
      if (item.includes('\u0000')) return 'Variables must not contain NUL characters';
      continue;
    }
    if (item === null || typeof item !== 'object') continue;
    if (depth >= maxDepth) return `Variables nest deeper than ${maxDepth} levels`;
    for (const [key, child] of Object.entries(item)) {
      if (key.includes('\u0000')) return 'Variables must not contain NUL characters';
      stack.push([child, depth + 1]);
    }
  }
  return null;
}
