import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Services } from '../../container';
import { DomainError, ErrorCode, errorBody } from '../../domain/errors';
import { forbidden } from '../../context/read-scope';
import type { SecretKeyPrincipal } from '../../context/request-context';
import { assertAddressAllowed } from '../key-restrictions';
import { readAsset, readPage } from './dashboard-files';
import {
  clearedSessionCookie,
  cookieValue,
  sameOrigin,
  SESSION_COOKIE,
  sessionCookie,
} from './cookies';

/** Everything the page loads comes from this gateway; no inline script, no framing. */
const PAGE_HEADERS = {
  'content-security-policy':
    "default-src 'self'; connect-src 'self' ws: wss:; img-src 'self' data:; style-src 'self'; script-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
};

const PUBLIC = { config: { public: true }, schema: { hide: true } } as const;

/**
 * The merchant dashboard: its page and assets (built by `npm run build` into dist/dashboard),
 * and the sign-in that exchanges a secret key for a session cookie plus a CSRF token.
 */
export const dashboardRoutes =
  (
    services: Services,
    /** Counts a key's 403 against its per-minute limit: the 429 to answer instead, or null. */
    countRefusal: (key: SecretKeyPrincipal, reply: FastifyReply) => Promise<Error | null>,
  ): FastifyPluginAsync =>
  async (app) => {
    const secure = services.config.ONRAMP_ENV === 'production';
    const lifetime = services.config.DASHBOARD_SESSION_SECONDS;

    const page = async (_request: FastifyRequest, reply: FastifyReply) => {
      const html = await readPage();
      if (!html) {
        return reply
          .code(503)
          .send(
            errorBody(
              ErrorCode.ServiceUnavailable,
              'The dashboard is not built; run npm run build',
            ),
          );
      }
      return reply.headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(html);
    };
    app.get('/dashboard', PUBLIC, page);
    app.get('/dashboard/', PUBLIC, page);

    app.get<{ Params: { '*': string } }>('/dashboard/assets/*', PUBLIC, async (request, reply) => {
      const asset = await readAsset(request.params['*']);
      if (!asset) {
        return reply.code(404).send(errorBody(ErrorCode.NotFound, 'No such dashboard asset'));
      }
      return reply
        .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' })
        .type(asset.contentType)
        .send(asset.body);
    });

    const presentSession = (s: {
      csrfToken: string;
      merchant: { id: string; name: string };
      principal: { scopes: readonly string[] };
    }) => ({
      csrf_token: s.csrfToken,
      merchant: { ...s.merchant, environment: services.config.ONRAMP_ENV },
      // What the signed-in key may do: the page shows only the panels it can use.
      scopes: s.principal.scopes,
    });

    app.post<{ Body: unknown }>('/dashboard/api/session', PUBLIC, async (request, reply) => {
      if (!sameOrigin(request.headers)) throw forbidden('Sign in from the dashboard page');
      const body = request.body as { api_key?: unknown } | null;
      if (body === null || typeof body !== 'object' || Array.isArray(body)) {
        throw new DomainError(ErrorCode.InvalidParameter, 'Send {"api_key": "sk_..."}');
      }
      // A key held to some addresses opens a session only from one of them (and every use of
      // the session is checked again by the gateway); the refusal counts against the key.
      let refusedKey: SecretKeyPrincipal | undefined;
      const session = await services.dashboardSessions
        .open(request.em, body.api_key, (key) => {
          refusedKey = key;
          assertAddressAllowed(key, request.ip);
          refusedKey = undefined;
        })
        .catch(async (error: unknown) => {
          throw (refusedKey && (await countRefusal(refusedKey, reply))) || error;
        });
      return reply
        .code(201)
        .header('set-cookie', sessionCookie(session.token, lifetime, secure))
        .header('cache-control', 'no-store')
        .send(presentSession(session));
    });

    app.get('/dashboard/api/session', PUBLIC, async (request, reply) => {
      const session = await services.dashboardSessions.resume(
        request.em,
        cookieValue(request.headers, SESSION_COOKIE),
        null,
      );
      return reply.header('cache-control', 'no-store').send(presentSession(session));
    });

    app.delete('/dashboard/api/session', PUBLIC, async (request, reply) => {
      const csrf = request.headers['x-csrf-token'];
      await services.dashboardSessions.close(
        request.em,
        cookieValue(request.headers, SESSION_COOKIE),
        typeof csrf === 'string' ? csrf : '',
      );
      return reply.code(204).header('set-cookie', clearedSessionCookie(secure)).send();
    });
  };
