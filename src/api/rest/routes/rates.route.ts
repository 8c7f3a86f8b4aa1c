import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { errorResponses, RateResponse, refTo } from '../schemas';
import { presentRate } from '../presenters';

export const ratesRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/rates',
      {
        config: { scopes: ['rates:read'] },
        schema: {
          operationId: 'getRate',
          summary: 'Get a firm NGN quote',
          tags: ['rates'],
          querystring: Type.Object(
            {
              // Presence and values are checked by the domain so GraphQL gets the same answers.
              from: Type.Optional(Type.String({ maxLength: 16 })),
              to: Type.Optional(Type.String({ maxLength: 16 })),
            },
            { additionalProperties: true },
          ),
          response: { 200: refTo(RateResponse), ...errorResponses(403) },
        },
      },
      async (request) =>
        presentRate(
          await services.rates.current(
            request.em,
            { from: request.query.from, to: request.query.to },
            request.principal?.merchantId,
          ),
        ),
    );
  };
