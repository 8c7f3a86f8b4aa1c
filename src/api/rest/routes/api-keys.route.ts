import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import type { ApiKeyView } from '../../../merchants';
import { pageInfo, parsePage } from '../../../domain/pagination';
import { errorResponses, refTo } from '../schemas';
import { IdParams } from '../onramp.schemas';
import {
  ApiKeyListQuery,
  ApiKeyListResponse,
  ApiKeyResponse,
  CreateApiKeyBody,
  CreatedApiKeyResponse,
} from '../api-key.schemas';

export function presentApiKey(key: ApiKeyView) {
  return {
    id: key.id,
    name: key.name,
    scopes: key.scopes,
    allowed_ips: key.allowedIps,
    key_prefix: key.keyPrefix,
    created_at: key.createdAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}

/**
 * The merchant's own keys. No `scopes` in the routes' config: only a key with `all` manages
 * keys (a restricted key is refused 403 `insufficient_scope` before the handler).
 */
export const apiKeyRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/api_keys',
      {
        schema: {
          operationId: 'createApiKey',
          summary: 'Create an API key (a restricted rk_ key unless scopes is ["all"])',
          tags: ['api_keys'],
          body: CreateApiKeyBody,
          response: { 201: refTo(CreatedApiKeyResponse), ...errorResponses(403, 409, 413, 422) },
        },
      },
      async (request, reply) => {
        const { merchantId, keyId } = requireSecretKey(request.principal!);
        const { key, secret } = await services.apiKeys.create(request.em, merchantId, keyId, {
          name: request.body.name,
          scopes: request.body.scopes,
          allowedIps: request.body.allowed_ips,
        });
        return reply.code(201).send({ ...presentApiKey(key), secret });
      },
    );

    app.get(
      '/v1/api_keys',
      {
        schema: {
          operationId: 'listApiKeys',
          summary: "List the merchant's API keys, newest first (never their secrets)",
          tags: ['api_keys'],
          querystring: ApiKeyListQuery,
          response: { 200: ApiKeyListResponse, ...errorResponses(403) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const page = parsePage(request.query.page, request.query.per_page);
        const { keys, total } = await services.apiKeys.list(request.em, merchantId, {
          offset: (page.page - 1) * page.perPage,
          limit: page.perPage,
        });
        return { api_keys: keys.map(presentApiKey), pagination: pageInfo(page, total) };
      },
    );

    app.delete(
      '/v1/api_keys/:id',
      {
        schema: {
          operationId: 'revokeApiKey',
          summary:
            'Revoke an API key at once (its websockets close); revoking again answers the key',
          tags: ['api_keys'],
          params: IdParams,
          response: { 200: refTo(ApiKeyResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { merchantId, keyId } = requireSecretKey(request.principal!);
        return presentApiKey(
          await services.apiKeys.revoke(request.em, merchantId, keyId, request.params.id),
        );
      },
    );
  };
