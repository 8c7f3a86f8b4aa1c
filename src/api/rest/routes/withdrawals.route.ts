import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { pageInfo, parsePage } from '../../../domain/pagination';
import { errorResponses, refTo } from '../schemas';
import { IdParams } from '../onramp.schemas';
import {
  WithdrawalListQuery,
  WithdrawalListResponse,
  WithdrawalResponse,
  WithdrawBody,
} from '../withdrawal.schemas';
import { presentWithdrawal } from '../../../payouts';

/**
 * Merchant withdrawals of the USD balance. Secret keys only: a client secret is refused by
 * the gateway's default deny (none of these routes sets `clientSecret`) and again here.
 */
export const withdrawalRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/merchant/withdraw',
      {
        config: { scopes: ['withdrawals:write'] },
        schema: {
          operationId: 'createWithdrawal',
          summary: 'Withdraw USD balance as a stablecoin (accepted: 202, status PENDING)',
          tags: ['merchant'],
          body: WithdrawBody,
          response: { 202: refTo(WithdrawalResponse), ...errorResponses(403, 409, 413, 422) },
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const withdrawal = await services.withdrawals.request(request.em, merchantId, request.body);
        // 202: the amount is reserved, the on-chain transfer happens later.
        return reply.code(202).send(presentWithdrawal(withdrawal));
      },
    );

    app.get(
      '/v1/merchant/withdrawals',
      {
        config: { scopes: ['balance:read', 'withdrawals:write'] },
        schema: {
          operationId: 'listWithdrawals',
          summary: 'List withdrawals, newest first',
          tags: ['merchant'],
          querystring: WithdrawalListQuery,
          response: { 200: WithdrawalListResponse, ...errorResponses(403) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const page = parsePage(request.query.page, request.query.per_page);
        const { withdrawals, total } = await services.withdrawals.list(request.em, merchantId, {
          offset: (page.page - 1) * page.perPage,
          limit: page.perPage,
        });
        return {
          withdrawals: withdrawals.map(presentWithdrawal),
          pagination: pageInfo(page, total),
        };
      },
    );

    app.get(
      '/v1/merchant/withdrawals/:id',
      {
        config: { scopes: ['balance:read', 'withdrawals:write'] },
        schema: {
          operationId: 'getWithdrawal',
          summary: 'Get one withdrawal',
          tags: ['merchant'],
          params: IdParams,
          response: { 200: refTo(WithdrawalResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        // Unknown or another merchant's: 404 alike.
        return presentWithdrawal(
          await services.withdrawals.get(request.em, merchantId, request.params.id),
        );
      },
    );
  };
