import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { errorResponses, refTo } from '../schemas';
import { BalanceResponse } from '../deposit.schemas';
import { presentBalance } from '../presenters';

export const merchantRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/v1/merchant/balance',
      {
        config: { scopes: ['balance:read'] },
        schema: {
          operationId: 'getMerchantBalance',
          summary: 'The merchant USD balances, read from the ledger',
          tags: ['merchant'],
          response: { 200: refTo(BalanceResponse), ...errorResponses(403) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const merchant = await services.merchants.get(request.em, merchantId);
        return presentBalance(
          await services.ledger.balance(request.em, merchantId, merchant.createdAt),
        );
      },
    );
  };
