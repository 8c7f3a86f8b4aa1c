import type { Answer, SentRequest, Violation } from './oracle';

/** The credentials of the fuzz world that are API keys (not client secrets, not sessions). */
const KEYS = new Set(['A key', 'A restricted key', 'A key elsewhere']);

/** The paths docs/api.md "Browsers" covers: GraphQL and the authenticated REST API. */
function browserPath(path: string): boolean {
  const bare = path.split('?')[0].split('#')[0];
  return bare === '/graphql' || (bare.startsWith('/v1/') && bare !== '/v1/openapi.json');
}

/** The request's Origin when it names a page of another site than the gateway at `ownUrl`. */
function foreignOriginOf(sent: SentRequest, ownUrl: string): string | undefined {
  const origin = sent.headers.origin;
  if (origin === undefined) return undefined;
  try {
    if (new URL(origin).host === new URL(ownUrl).host) return undefined;
  } catch {
    // "null" and garbage: another site's
  }
  return origin;
}

const header = (answer: Answer, name: string): string | undefined => {
  const value = answer.headers[name];
  return Array.isArray(value) ? value.join(', ') : value;
};

/**
 * The browser invariants every fuzzed answer keeps: never credentials cross-origin, never `*`;
 * `Access-Control-Allow-Origin` on a real call only echoes the Origin of a client secret's
 * request from another site; a key sent from another site's page never succeeds; a client
 * secret's success from another site is always readable (its origin was allowed).
 */
export function browserViolations(sent: SentRequest, answer: Answer, ownUrl: string): Violation[] {
  const violations: Violation[] = [];
  const allowOrigin = header(answer, 'access-control-allow-origin');
  const origin = foreignOriginOf(sent, ownUrl);
  const success = answer.status >= 200 && answer.status < 300;
  const preflight = sent.method === 'OPTIONS';
  if (header(answer, 'access-control-allow-credentials') !== undefined) {
    violations.push({ rule: 'cors-credentials', detail: 'Access-Control-Allow-Credentials sent' });
  }
  if (allowOrigin === '*') violations.push({ rule: 'cors-wildcard', detail: 'Allow-Origin: *' });
  if (allowOrigin !== undefined && !preflight) {
    if (sent.credential !== 'A client secret' || allowOrigin !== origin) {
      violations.push({
        rule: 'cors-allow-origin',
        detail: `${allowOrigin} for ${sent.credential} from ${String(sent.headers.origin)}`,
      });
    }
  }
  if (!preflight && origin !== undefined && browserPath(sent.path)) {
    if (success && KEYS.has(sent.credential)) {
      violations.push({
        rule: 'key-from-page',
        detail: `${answer.status} for ${sent.credential} from ${origin}`,
      });
    }
    if (success && sent.credential === 'A client secret' && allowOrigin !== origin) {
      violations.push({
        rule: 'client-secret-origin',
        detail: `${answer.status} from ${origin} without Allow-Origin`,
      });
    }
  }
  return violations;
}
