import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { pageInfo, parsePage } from '../../../domain/pagination';
import { presentWithdrawalAddress } from '../../../payouts';
import { errorResponses, refTo } from '../schemas';
import { IdParams } from '../onramp.schemas';
import {
  NewWithdrawalAddressBody,
  WithdrawalAddressListQuery,
  WithdrawalAddressListResponse,
  WithdrawalAddressResponse,
} from '../withdrawal-address.schemas';

/**
 * The withdrawal address book. Secret keys only (a client secret is refused by the default
 * deny and again here); restricted keys need `withdrawals:write` (the list also `balance:read`).
 */
export const withdrawalAddressRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/merchant/withdrawal_addresses',
      {
        config: { scopes: ['withdrawals:write'] },
        schema: {
          operationId: 'createWithdrawalAddress',
          summary:
            'Add an address (201, PENDING until active_at); an address already in the book: 200, that entry',
          tags: ['merchant'],
          body: NewWithdrawalAddressBody,
          response: {
            200: refTo(WithdrawalAddressResponse),
            201: refTo(WithdrawalAddressResponse),
            ...errorResponses(403, 409, 413, 422),
          },
        },
      },
      async (request, reply) => {
        const { merchantId, keyId } = requireSecretKey(request.principal!);
        const { entry, created } = await services.withdrawalAddresses.add(
          request.em,
          { merchantId, keyId },
          request.body,
        );
        return reply
          .code(created ? 201 : 200)
          .send(presentWithdrawalAddress(entry, services.clock.now()));
      },
    );

    app.get(
      '/v1/merchant/withdrawal_addresses',
      {
        config: { scopes: ['withdrawals:write', 'balance:read'] },
        schema: {
          operationId: 'listWithdrawalAddresses',
          summary: 'List the address book, newest first',
          tags: ['merchant'],
          querystring: WithdrawalAddressListQuery,
          response: { 200: WithdrawalAddressListResponse, ...errorResponses(403) },
        },
      },
      async (request) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const page = parsePage(request.query.page, request.query.per_page);
        const { entries, total } = await services.withdrawalAddresses.list(request.em, merchantId, {
          offset: (page.page - 1) * page.perPage,
          limit: page.perPage,
        });
        const now = services.clock.now();
        return {
          withdrawal_addresses: entries.map((entry) => presentWithdrawalAddress(entry, now)),
          pagination: pageInfo(page, total),
        };
      },
    );

    app.delete(
      '/v1/merchant/withdrawal_addresses/:id',
      {
        config: { scopes: ['withdrawals:write'] },
        schema: {
          operationId: 'deleteWithdrawalAddress',
          summary: 'Remove an address at once (200, the entry with status DELETED)',
          tags: ['merchant'],
          params: IdParams,
          response: { 200: refTo(WithdrawalAddressResponse), ...errorResponses(403, 404) },
        },
      },
      async (request) => {
        const { merchantId, keyId } = requireSecretKey(request.principal!);
        const entry = await services.withdrawalAddresses.remove(
          request.em,
          { merchantId, keyId },
          request.params.id,
        );
        return presentWithdrawalAddress(entry, services.clock.now());
      },
    );
  };
