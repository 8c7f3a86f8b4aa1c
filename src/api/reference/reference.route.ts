import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsync, FastifyReply } from 'fastify';
import type { Config } from '../../config';
import { ErrorCode, errorBody } from '../../domain/errors';
import { readReferenceAsset, readReferencePage, type ReferencePage } from './reference-files';

/** Where the GraphiQL page carries its response's nonce (its script hands it to React). */
const NONCE_PLACEHOLDER = '__CSP_NONCE__';

/**
 * Both pages load only their own scripts and styles from this gateway: no inline script, no
 * eval, no framing, no forms. The data: fonts and images are the ones the bundled stylesheets
 * embed. GraphiQL's dialogs add one <style> element of their own (react-remove-scroll's scroll
 * lock), allowed by a nonce fresh on every response rather than by 'unsafe-inline'.
 */
function contentSecurityPolicy(page: ReferencePage, nonce: string): string {
  const styles = page === 'graphiql' ? `'self' 'nonce-${nonce}'` : "'self'";
  // Swagger UI fetches /v1/openapi.json and, on "Try it out", the API itself; GraphiQL posts
  // to /graphql and opens the graphql-ws socket on the same host.
  const connect = page === 'graphiql' ? "'self' ws: wss:" : "'self'";
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src ${styles}`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src ${connect}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

const PAGE_HEADERS = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
};

const PUBLIC = { config: { public: true }, schema: { hide: true } } as const;

/** On when the operator says so; unset, on in the sandbox and off in production. */
const enabled = (config: Config, value: boolean | undefined): boolean =>
  value ?? config.ONRAMP_ENV === 'sandbox';

/**
 * The REST reference at /docs (Swagger UI rendering /v1/openapi.json) and GraphiQL at
 * /graphiql, both built by `npm run build` into dist/reference. A page that is off is not
 * registered, so it answers the API's own 404 like any unknown path.
 */
export const referenceRoutes =
  (config: Config): FastifyPluginAsync =>
  async (app) => {
    const pages: ReferencePage[] = [];
    if (enabled(config, config.DOCS_ENABLED)) pages.push('docs');
    if (enabled(config, config.GRAPHIQL_ENABLED)) pages.push('graphiql');

    for (const name of pages) {
      const page = async (_request: unknown, reply: FastifyReply) => {
        const html = await readReferencePage(name);
        if (!html) {
          return reply
            .code(503)
            .send(
              errorBody(ErrorCode.ServiceUnavailable, `/${name} is not built; run npm run build`),
            );
        }
        const nonce = randomBytes(16).toString('base64');
        return reply
          .headers({
            ...PAGE_HEADERS,
            'content-security-policy': contentSecurityPolicy(name, nonce),
          })
          .type('text/html; charset=utf-8')
          .send(html.toString('utf8').replaceAll(NONCE_PLACEHOLDER, nonce));
      };
      app.get(`/${name}`, PUBLIC, page);
      app.get(`/${name}/`, PUBLIC, page);

      app.get<{ Params: { file: string } }>(
        `/${name}/assets/:file`,
        PUBLIC,
        async (request, reply) => {
          const asset = await readReferenceAsset(name, request.params.file);
          if (!asset) {
            return reply.code(404).send(errorBody(ErrorCode.NotFound, `No such /${name} asset`));
          }
          return reply
            .headers({ 'x-content-type-options': 'nosniff', 'cache-control': 'no-cache' })
            .type(asset.contentType)
            .send(asset.body);
        },
      );
    }
  };
