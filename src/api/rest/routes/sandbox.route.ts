import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { requireSecretKey } from '../../../merchants';
import { DomainError, ErrorCode } from '../../../domain/errors';
import { errorResponses, refTo } from '../schemas';
import { DepositResponse, SimulateDepositBody, SimulateReversalBody } from '../deposit.schemas';
import { publicDeposit } from '../../../deposits';
import { sandboxPayer } from '../../../sandbox';
import { newSandboxBankReference } from '../../../domain/ids';

/**
 * Sandbox only: simulated bank transfers and reversals, through the same ingestion and
 * reversal services as the bank provider's notifications. Not registered in production, so
 * there the paths answer 404 `not_found` like any unknown route.
 */
export const sandboxRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    if (services.config.ONRAMP_ENV !== 'sandbox') return;

    app.post(
      '/v1/sandbox/deposits',
      {
        config: { scopes: ['sandbox:write'] },
        schema: {
          operationId: 'simulateDeposit',
          summary: 'Sandbox: simulate an NGN transfer into a virtual account',
          tags: ['sandbox'],
          body: SimulateDepositBody,
          response: {
            201: refTo(DepositResponse),
            200: refTo(DepositResponse),
            ...errorResponses(403, 404, 409, 413),
          },
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const body = request.body;
        const bankReference = body.bank_reference ?? newSandboxBankReference();
        const outcome = await services.ingestion.receive(
          request.em,
          {
            accountNumber: body.account_number,
            amountNgn: String(body.amount_ngn),
            bankReference,
            ...sandboxPayer(bankReference, body.payer),
          },
          { merchantId },
        );
        // With a merchant, an account that is not theirs is 404 before anything is recorded.
        if (outcome.kind !== 'deposit') {
          throw new DomainError(
            ErrorCode.NotFound,
            `No onramp of yours has account number ${body.account_number}`,
          );
        }
        return reply.code(outcome.created ? 201 : 200).send(publicDeposit(outcome.deposit));
      },
    );

    app.post(
      '/v1/sandbox/reversals',
      {
        config: { scopes: ['sandbox:write'] },
        schema: {
          operationId: 'simulateReversal',
          summary: 'Sandbox: simulate the bank reversing a transfer',
          tags: ['sandbox'],
          body: SimulateReversalBody,
          response: {
            201: refTo(DepositResponse),
            200: refTo(DepositResponse),
            ...errorResponses(403, 404, 409, 413),
          },
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const { deposit, reversed } = await services.reversals.reverse(
          request.em,
          request.body.bank_reference,
          { merchantId },
        );
        return reply.code(reversed ? 201 : 200).send(publicDeposit(deposit));
      },
    );
  };
