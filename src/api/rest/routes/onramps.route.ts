import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { requestContextOf } from '../../principal';
import { pageInfo, parsePage } from '../../../domain/pagination';
import { errorResponses, refTo } from '../schemas';
import { presentOnramp } from '../presenters';
import {
  CreatedOnrampResponse,
  CreateOnrampBody,
  IdParams,
  OnrampResponse,
  PageQuery,
  Pagination,
} from '../onramp.schemas';

export const onrampRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/onramp',
      {
        config: { scopes: ['onramps:write'] },
        schema: {
          operationId: 'createOnramp',
          summary: 'Create an onramp and provision its virtual account',
          tags: ['onramps'],
          body: CreateOnrampBody,
          response: { 201: refTo(CreatedOnrampResponse), ...errorResponses(403, 409, 413, 422) },
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const body = request.body;
        const created = await services.onramps.create(request.em, merchantId, {
          type: body.type,
          user: body.user,
          rateId: body.rate_id,
          amountNgn: body.amount_ngn,
          payerName: body.payer_name,
          customer: body.customer && {
            firstName: body.customer.first_name,
            lastName: body.customer.last_name,
            phone: body.customer.phone,
            bvn: body.customer.bvn,
            nin: body.customer.nin,
          },
          settlement: {
            mode: body.settlement.mode,
            asset: body.settlement.asset,
            chain: body.settlement.chain,
            destinationAddress: body.settlement.destination_address,
          },
        });
        return reply.code(201).send({
          ...presentOnramp(created.onramp, services.clock.now()),
          client_secret: created.clientSecret,
        });
      },
    );

    app.get(
      '/v1/onramp/:id',
      {
        config: { clientSecret: true, scopes: ['onramps:read'] },
        schema: {
          operationId: 'getOnramp',
          summary: 'Get one onramp (a client secret may read its own)',
          tags: ['onramps'],
          params: IdParams,
          response: { 200: refTo(OnrampResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        // A client secret naming another onramp: 403; unknown or another merchant's: 404.
        const onramp = await services.onramps.get(
          request.em,
          requestContextOf(request),
          request.params.id,
        );
        return presentOnramp(onramp, services.clock.now());
      },
    );

    app.get(
      '/v1/onramps',
      {
        config: { scopes: ['onramps:read'] },
        schema: {
          operationId: 'listOnramps',
          summary: 'List onramps, newest first',
          tags: ['onramps'],
          querystring: Type.Object(PageQuery),
          response: {
            200: Type.Object({
              onramps: Type.Array(refTo(OnrampResponse)),
              pagination: refTo(Pagination),
            }),
            ...errorResponses(403),
          },
        },
      },
      async (request) => {
        const page = parsePage(request.query.page, request.query.per_page);
        const { onramps, total } = await services.onramps.list(
          request.em,
          requestContextOf(request),
          {
            offset: (page.page - 1) * page.perPage,
            limit: page.perPage,
          },
        );
        const now = services.clock.now();
        return {
          onramps: onramps.map((o) => presentOnramp(o, now)),
          pagination: pageInfo(page, total),
        };
      },
    );

    app.post(
      '/v1/onramp/:id/deactivate',
      {
        config: { scopes: ['onramps:write'] },
        schema: {
          operationId: 'deactivateOnramp',
          summary: 'Deactivate a PERMANENT onramp',
          tags: ['onramps'],
          params: IdParams,
          response: { 200: refTo(OnrampResponse), ...errorResponses(403, 404, 409) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const onramp = await services.onramps.deactivate(request.em, merchantId, request.params.id);
        return presentOnramp(onramp, services.clock.now());
      },
    );

    app.post(
      '/v1/onramp/:id/revoke_client_secret',
      {
        config: { scopes: ['onramps:write'] },
        schema: {
          operationId: 'revokeOnrampClientSecret',
          summary: "Revoke an onramp's client secret",
          description:
            'From now on the client secret answers 401 and its websockets close (4403). ' +
            'Revoking again answers the onramp.',
          tags: ['onramps'],
          params: IdParams,
          response: { 200: refTo(OnrampResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const onramp = await services.onramps.revokeClientSecret(
          request.em,
          merchantId,
          request.params.id,
        );
        return presentOnramp(onramp, services.clock.now());
      },
    );
  };
