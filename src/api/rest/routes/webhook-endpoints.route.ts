import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { pageInfo, parsePage } from '../../../domain/pagination';
import { errorResponses, refTo } from '../schemas';
import { IdParams, PageQuery, Pagination } from '../onramp.schemas';
import {
  CreateWebhookEndpointBody,
  DeletedWebhookEndpointResponse,
  UpdateWebhookEndpointBody,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from '../webhook-endpoint.schemas';
import {
  presentWebhookDelivery,
  presentWebhookEndpoint,
  presentWebhookEndpointWithSecret,
} from '../webhook-endpoint.presenters';
import { restWebhookSend } from '../../webhook-sends-limited';

/** Every route here: a restricted key needs `webhooks:write` (the secret signs what we send). */
const WEBHOOKS = { scopes: ['webhooks:write'] as const };
const TAGS = ['webhook endpoints'];

/** A merchant's webhook endpoints (up to 10), their secrets, test sends and delivery logs. */
export const webhookEndpointRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    const endpoints = services.webhookEndpoints;

    app.post(
      '/v1/webhook_endpoints',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'createWebhookEndpoint',
          summary: 'Create a webhook endpoint (at most 10)',
          description:
            'Answers the endpoint with its signing secret. `enabled_events`: event names, or ' +
            '`["*"]` for every event. The eleventh endpoint: 422 `limit_exceeded`.',
          tags: TAGS,
          body: CreateWebhookEndpointBody,
          response: {
            201: refTo(WebhookEndpointWithSecretResponse),
            ...errorResponses(403, 409, 413, 422),
          },
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const created = await endpoints.create(request.em, merchantId, {
          url: request.body.url,
          enabledEvents: request.body.enabled_events,
          description: request.body.description,
        });
        return reply.code(201).send(presentWebhookEndpointWithSecret(created));
      },
    );

    app.get(
      '/v1/webhook_endpoints',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'listWebhookEndpoints',
          summary: 'List webhook endpoints, oldest first (no secrets)',
          tags: TAGS,
          querystring: Type.Object(PageQuery),
          response: {
            200: Type.Object({
              webhook_endpoints: Type.Array(refTo(WebhookEndpointResponse)),
              pagination: refTo(Pagination),
            }),
            ...errorResponses(403),
          },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const page = parsePage(request.query.page, request.query.per_page);
        // At most 10: read them all, page in memory.
        const all = await endpoints.list(request.em, merchantId);
        const offset = (page.page - 1) * page.perPage;
        return {
          webhook_endpoints: all.slice(offset, offset + page.perPage).map(presentWebhookEndpoint),
          pagination: pageInfo(page, all.length),
        };
      },
    );

    app.get(
      '/v1/webhook_endpoints/:id',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'getWebhookEndpoint',
          summary: 'Get one webhook endpoint, with its signing secret',
          tags: TAGS,
          params: IdParams,
          response: { 200: refTo(WebhookEndpointWithSecretResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        return presentWebhookEndpointWithSecret(
          await endpoints.getById(request.em, merchantId, request.params.id),
        );
      },
    );

    app.patch(
      '/v1/webhook_endpoints/:id',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'updateWebhookEndpoint',
          summary: 'Change a webhook endpoint: url, enabled_events, description, status',
          tags: TAGS,
          params: IdParams,
          body: UpdateWebhookEndpointBody,
          response: { 200: refTo(WebhookEndpointResponse), ...errorResponses(403, 404, 413) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const body = request.body;
        return presentWebhookEndpoint(
          await endpoints.update(request.em, merchantId, request.params.id, {
            url: body.url,
            enabledEvents: body.enabled_events,
            description: body.description,
            status: body.status,
          }),
        );
      },
    );

    app.delete(
      '/v1/webhook_endpoints/:id',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'deleteWebhookEndpoint',
          summary: 'Delete a webhook endpoint; its pending deliveries stop',
          tags: TAGS,
          params: IdParams,
          response: { 200: refTo(DeletedWebhookEndpointResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        await endpoints.remove(request.em, merchantId, request.params.id);
        return { id: request.params.id, deleted: true };
      },
    );

    app.post(
      '/v1/webhook_endpoints/:id/rotate_secret',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'rotateWebhookEndpointSecret',
          summary: "Rotate an endpoint's signing secret",
          description: 'The previous secret keeps signing too for 24 h (both signatures are sent).',
          tags: TAGS,
          params: IdParams,
          response: {
            200: refTo(WebhookEndpointWithSecretResponse),
            ...errorResponses(403, 404, 409, 413),
          },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        return presentWebhookEndpointWithSecret(
          await endpoints.rotateById(request.em, merchantId, request.params.id),
        );
      },
    );

    app.post(
      '/v1/webhook_endpoints/:id/test',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'testWebhookEndpoint',
          summary: 'Send a signed test.ping event to this endpoint only',
          description:
            'Answers the delivery (attempted at once); a disabled endpoint: 400. Tests and replays count against WEBHOOK_TEST_AND_REPLAY_PER_HOUR per merchant (429 past it).',
          tags: TAGS,
          params: IdParams,
          response: { 200: refTo(WebhookDeliveryResponse), ...errorResponses(403, 404, 409, 413) },
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        return presentWebhookDelivery(
          await restWebhookSend(
            reply,
            services.webhookLog.sendTest(request.em, merchantId, request.params.id),
          ),
        );
      },
    );

    app.get(
      '/v1/webhook_endpoints/:id/deliveries',
      {
        config: WEBHOOKS,
        schema: {
          operationId: 'listWebhookEndpointDeliveries',
          summary: "An endpoint's deliveries with their attempts, newest first",
          tags: TAGS,
          params: IdParams,
          querystring: Type.Object(PageQuery),
          response: {
            200: Type.Object({
              deliveries: Type.Array(refTo(WebhookDeliveryResponse)),
              pagination: refTo(Pagination),
            }),
            ...errorResponses(403, 404),
          },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const page = parsePage(request.query.page, request.query.per_page);
        // Another merchant's (or an unknown) endpoint: 404, not an empty list.
        await endpoints.getById(request.em, merchantId, request.params.id);
        const { deliveries, total } = await services.webhookLog.listPage(
          request.em,
          merchantId,
          request.params.id,
          (page.page - 1) * page.perPage,
          page.perPage,
        );
        return {
          deliveries: deliveries.map(presentWebhookDelivery),
          pagination: pageInfo(page, total),
        };
      },
    );
  };
