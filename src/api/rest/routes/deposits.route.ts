import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import type { Services } from '../../../container';
import { requestContextOf } from '../../principal';
import { pageInfo, parsePage } from '../../../domain/pagination';
import { errorResponses, refTo } from '../schemas';
import { IdParams, Pagination } from '../onramp.schemas';
import { DepositListQuery, DepositResponse } from '../deposit.schemas';
import { publicDeposit } from '../../../deposits';
import { requireSecretKey } from '../../../merchants';

export const depositRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/deposits',
      {
        config: { clientSecret: true, scopes: ['deposits:read'] },
        schema: {
          operationId: 'listDeposits',
          summary: 'List deposits, newest first (a client secret: its onramp only)',
          tags: ['deposits'],
          querystring: DepositListQuery,
          response: {
            200: Type.Object({
              deposits: Type.Array(refTo(DepositResponse)),
              pagination: refTo(Pagination),
            }),
            ...errorResponses(403),
          },
        },
      },
      async (request) => {
        const query = request.query;
        const page = parsePage(query.page, query.per_page);
        // A client secret is held to its onramp by the service (naming another one is 403).
        const { deposits, total } = await services.deposits.list(
          request.em,
          requestContextOf(request),
          {
            onrampId: query.onramp_id,
            status: query.status,
            from: query.from,
            to: query.to,
            updatedSince: query.updated_since,
          },
          { offset: (page.page - 1) * page.perPage, limit: page.perPage },
        );
        return { deposits: deposits.map(publicDeposit), pagination: pageInfo(page, total) };
      },
    );

    app.get(
      '/v1/deposits/:id',
      {
        config: { clientSecret: true, scopes: ['deposits:read'] },
        schema: {
          operationId: 'getDeposit',
          summary: 'Get one deposit (a client secret: of its onramp only)',
          tags: ['deposits'],
          params: IdParams,
          response: { 200: refTo(DepositResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        // Unknown or another merchant's: 404; this merchant's but another onramp's: 403.
        const deposit = await services.deposits.getView(
          request.em,
          requestContextOf(request),
          request.params.id,
        );
        return publicDeposit(deposit);
      },
    );

    app.post(
      '/v1/deposits/:id/return',
      {
        // No scope: money leaves, so only a key with `all` (or the dashboard) may send it.
        schema: {
          operationId: 'returnDeposit',
          summary: 'Send a FLAGGED deposit back to its payer (answers it RETURNING)',
          tags: ['deposits'],
          params: IdParams,
          response: { 200: refTo(DepositResponse), ...errorResponses(400, 403, 404) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        await services.returns.returnForMerchant(request.em, merchantId, request.params.id);
        const deposit = await services.deposits.getView(
          request.em,
          requestContextOf(request),
          request.params.id,
        );
        return publicDeposit(deposit);
      },
    );
  };
