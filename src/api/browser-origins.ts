import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import cors, { type FastifyCorsOptions } from '@fastify/cors';
import type { MerchantContext } from '../context/request-context';
import { originAllowed } from '../domain/allowed-origins';
import { DomainError, ErrorCode } from '../domain/errors';

/**
 * Browsers (docs/api.md "Browsers"): merchant frontends call `/graphql` and `/v1/*` from
 * their own origin with an onramp's client secret. A browser names the page's origin in
 * `Origin` on every cross-origin request (and on same-origin POSTs and websocket upgrades);
 * servers and curl send none, and nothing here applies to them.
 */

/** How the gateway knows its own origin, besides the request's Host header. */
export interface OwnOrigin {
  /** PUBLIC_URL's origin when set: behind a proxy the Host header may name the upstream. */
  publicOrigin?: string;
  sandbox: boolean;
}

export function ownOriginOf(config: { PUBLIC_URL?: string; ONRAMP_ENV: string }): OwnOrigin {
  return {
    publicOrigin: config.PUBLIC_URL ? new URL(config.PUBLIC_URL).origin : undefined,
    sandbox: config.ONRAMP_ENV !== 'production',
  };
}

/**
 * The request's `Origin` when it names a page of another site; undefined when there is none
 * (not a browser) or it is the service's own: the host the browser addressed (`Host`, as the
 * dashboard's checks read it) or PUBLIC_URL's origin. `Origin: null` (a sandboxed frame, a
 * file) is another site's.
 */
export function foreignOrigin(headers: IncomingHttpHeaders, own: OwnOrigin): string | undefined {
  const origin = headers.origin;
  if (origin === undefined) return undefined;
  if (origin === own.publicOrigin) return undefined;
  try {
    if (new URL(origin).host === headers.host) return undefined;
  } catch {
    // not a URL ("null"): another site's
  }
  return origin;
}

/** An Origin as a message quotes it: the client chose it, so it is cut short. */
const quoted = (origin: string) => JSON.stringify(origin.slice(0, 100));

/**
 * The browser rule, after authentication (a bad key is 401 first): a client secret from
 * another site's page must come from one of its merchant's `allowed_origins` (403
 * `origin_not_allowed`); a secret or restricted key, or the dashboard's session, is never
 * used from another site's page (403 `forbidden`), and nothing else happens to the key.
 */
export function assertBrowserOrigin(
  context: Pick<MerchantContext, 'principal' | 'authentication'>,
  origin: string | undefined,
  own: OwnOrigin,
): void {
  if (origin === undefined) return;
  const { principal } = context;
  if (principal.kind === 'client_secret') {
    if (originAllowed(origin, principal.allowedOrigins ?? [], own.sandbox)) return;
    throw new DomainError(
      ErrorCode.OriginNotAllowed,
      `The origin ${quoted(origin)} is not in this merchant's allowed_origins; ` +
        'the merchant adds it with PATCH /v1/merchant/settings',
    );
  }
  if (context.authentication === 'dashboard_session') {
    throw new DomainError(
      ErrorCode.Forbidden,
      "The dashboard's session works on its own pages only",
    );
  }
  throw new DomainError(
    ErrorCode.Forbidden,
    `Secret and restricted API keys belong on the merchant's server, never in a browser page ` +
      `(this one came from ${quoted(origin)}); the key was not revoked. Browsers use an ` +
      "onramp's client_secret",
  );
}

/** The paths that answer CORS: GraphQL and the REST API, not the dashboard or payer pages. */
const corsPath = (url: string) => {
  const path = url.split('?')[0];
  return path === '/graphql' || path.startsWith('/v1/');
};

/** What a page may send and read: never cookies (no `Access-Control-Allow-Credentials`). */
const SHARED: FastifyCorsOptions = {
  credentials: false,
  methods: ['GET', 'HEAD', 'POST', 'PATCH', 'DELETE'],
  allowedHeaders: ['authorization', 'content-type', 'idempotency-key', 'x-request-id'],
  exposedHeaders: [
    'x-request-id',
    'idempotent-replayed',
    'retry-after',
    'ratelimit-limit',
    'ratelimit-remaining',
    'ratelimit-reset',
  ],
  // Browsers cache a preflight this long (Chromium at most 2 h): one per page and path.
  maxAge: 600,
  // An OPTIONS without Origin is not a browser's preflight; it gets the same harmless answer
  // instead of a plain-text 400.
  strictPreflight: false,
};
const NO_CORS: FastifyCorsOptions = { origin: false };
/** A preflight carries no credential, so it is answered for any origin (reflected). */
const PREFLIGHT: FastifyCorsOptions = { ...SHARED, origin: true };

/**
 * @fastify/cors, deciding per request. Registered after the authentication hook, so the real
 * call's `request.principal` is known: `Access-Control-Allow-Origin` goes only to a client
 * secret used from one of its merchant's allowed origins (any other was refused before).
 */
export async function registerCors(app: FastifyInstance, own: OwnOrigin): Promise<void> {
  const decide = (request: FastifyRequest): FastifyCorsOptions => {
    if (!corsPath(request.url)) return NO_CORS;
    if (request.method === 'OPTIONS') return PREFLIGHT;
    const origin = foreignOrigin(request.headers, own);
    const principal = request.principal;
    if (origin === undefined || principal?.kind !== 'client_secret') return NO_CORS;
    if (!originAllowed(origin, principal.allowedOrigins ?? [], own.sandbox)) return NO_CORS;
    return { ...SHARED, origin };
  };
  await app.register(cors, {
    hook: 'onRequest',
    delegator: (request, callback) => callback(null, decide(request)),
  });
}
