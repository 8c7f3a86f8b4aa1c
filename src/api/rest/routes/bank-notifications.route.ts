import { Type } from 'typebox';
import type { FastifyPluginAsync, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type {
  BankEvent,
  BankNotificationAdapter,
  ReturnNotification,
} from '../../../adapters/bank/bank-adapter';
import {
  BANK_SIGNATURE_HEADER,
  BANK_TIMESTAMP_HEADER,
  HmacBankAdapter,
} from '../../../adapters/bank/hmac-bank-adapter';
import { DEPOSIT_STATUSES } from '../../../domain/deposit-state-machine';
import { DomainError, ErrorCode } from '../../../domain/errors';
import type { Services } from '../../../container';
import { UNMATCHED_TRANSFER_SQL } from '../../../deposits';
import { validatorCompiler } from '../../validation';
import { errorResponses } from '../schemas';

const NotificationAnswer = Type.Object({
  received: Type.Boolean({ description: 'Always true: the notification is recorded' }),
  deposit_id: Type.Optional(Type.String({ description: 'The deposit the transfer made' })),
  status: Type.Optional(
    Type.String({ enum: [...DEPOSIT_STATUSES], description: 'The deposit status now' }),
  ),
  unmatched: Type.Optional(
    Type.Boolean({
      description:
        'No onramp held the account number (kept for the operator), or no return of ours has ' +
        'the reference (ignored)',
    }),
  ),
});

const Iso = Type.String({ format: 'date-time' });
/** For the OpenAPI document only: the body is checked by the adapter, over the raw bytes. */
const NotificationBody = Type.Union([
  Type.Object({
    event: Type.Literal('transfer.received'),
    data: Type.Object({
      account_number: Type.String({ description: 'The virtual account credited (10 digits)' }),
      amount: Type.String({ description: 'NGN, decimal string, at most 2 places' }),
      currency: Type.Literal('NGN'),
      reference: Type.String({ description: "The bank's unique reference of the transfer" }),
      sender_name: Type.Optional(Type.String()),
      sender_account_number: Type.Optional(Type.String()),
      sender_bank: Type.Optional(Type.String()),
      transferred_at: Type.Optional(Iso),
    }),
  }),
  Type.Object({
    event: Type.Literal('transfer.reversed'),
    data: Type.Object({ reference: Type.String(), reversed_at: Type.Optional(Iso) }),
  }),
  Type.Object({
    event: Type.Literal('transfer.return_completed'),
    data: Type.Object({
      reference: Type.String({ description: 'The reference we sent with the return (ret_...)' }),
      completed_at: Type.Optional(Iso),
    }),
  }),
  Type.Object({
    event: Type.Literal('transfer.return_failed'),
    data: Type.Object({
      reference: Type.String({ description: 'The reference we sent with the return (ret_...)' }),
      reason: Type.String({ description: "The bank's reason, kept for the operator" }),
    }),
  }),
]);

const NotificationHeaders = Type.Object({
  [BANK_TIMESTAMP_HEADER]: Type.Optional(
    Type.String({ description: 'Unix seconds; refused beyond 300 s from our clock' }),
  ),
  [BANK_SIGNATURE_HEADER]: Type.Optional(
    Type.String({
      description: 'v1=<hex HMAC-SHA256(secret, "{timestamp}.{raw body}")>, comma-separated',
    }),
  ),
});

/**
 * The body is a Buffer (the exact bytes the signature covers), so schema validation of the body
 * is off for this route; the adapter validates it. Other parts use the gateway's validators.
 */
const rawBodyValidator: FastifySchemaCompiler<unknown> = (route) =>
  route.httpPart === 'body' ? () => true : validatorCompiler(route);

// No API key, so no per-key rate limit (429 never answered here).
const { 429: _noRateLimit, ...notificationErrors } = errorResponses(404, 413);

async function isUnmatchedTransfer(request: FastifyRequest, bankReference: string) {
  const rows = await request.em.getConnection().execute(UNMATCHED_TRANSFER_SQL, [bankReference]);
  return rows.length > 0;
}

/**
 * The outcome of one of our returns: applied by the same code as the runner's polled answer
 * (once, whichever comes first). A reference we never sent is acknowledged, not 404: the bank
 * would retry it forever, and no retry can make it ours (attempts exist before we call it).
 */
async function returnNotified(
  services: Services,
  request: FastifyRequest,
  event: ReturnNotification,
) {
  const applied = await services.returnOutcomes.notified(request.em, event);
  if (applied.kind === 'unknown') {
    request.log.warn(
      { reference: event.reference, event: event.type },
      'return notification for an unknown reference',
    );
    return { received: true, unmatched: true };
  }
  request.log.info(
    {
      reference: event.reference,
      depositId: applied.depositId,
      applied: applied.kind === 'applied',
    },
    'bank return notification received',
  );
  return { received: true, deposit_id: applied.depositId, status: applied.status };
}

/**
 * `POST /v1/bank/notifications`: the bank provider's inbound-transfer and reversal
 * notifications (docs/bank-notifications.md). Public (authenticated by the adapter's
 * signature, not an API key), served only when `BANK_WEBHOOK_SECRET` is set or an adapter is
 * given. Answers 2xx only after the deposit (or reversal) is committed; the bank retries
 * anything else, and a repeated notification answers the same deposit again.
 */
export const bankNotificationRoutes =
  (services: Services, adapter?: BankNotificationAdapter): FastifyPluginAsync =>
  async (app) => {
    const secret = services.config.BANK_WEBHOOK_SECRET;
    const bank =
      adapter ?? (secret ? new HmacBankAdapter({ secret, clock: services.clock }) : null);
    if (!bank) return; // Not configured: the not-found handler answers 404.

    // This plugin's context only: keep the exact bytes the signature was computed over.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: app.initialConfig.bodyLimit },
      (_request, body, done) => done(null, body),
    );

    const handle = async (request: FastifyRequest, event: BankEvent) => {
      if (event.type === 'transfer.received') {
        const outcome = await services.ingestion.receive(request.em, event.transfer);
        if (outcome.kind === 'unmatched') {
          request.log.warn(
            { bankReference: event.transfer.bankReference, created: outcome.created },
            'bank transfer to an account number no onramp held',
          );
          return { received: true, unmatched: true };
        }
        request.log.info(
          {
            bankReference: event.transfer.bankReference,
            depositId: outcome.deposit.id,
            created: outcome.created,
          },
          'bank transfer received',
        );
        return { received: true, deposit_id: outcome.deposit.id, status: outcome.deposit.status };
      }
      if (event.type === 'transfer.return_completed' || event.type === 'transfer.return_failed') {
        return returnNotified(services, request, event);
      }
      if (event.type === 'ignored') {
        request.log.info({ reason: event.reason }, 'bank notification ignored');
        return { received: true };
      }
      try {
        const { deposit, reversed } = await services.reversals.reverse(
          request.em,
          event.bankReference,
        );
        request.log.info(
          { bankReference: event.bankReference, depositId: deposit.id, reversed },
          'bank reversal received',
        );
        return { received: true, deposit_id: deposit.id, status: deposit.status };
      } catch (error) {
        // A reversal of a transfer we kept as unmatched: nothing to move in a deposit; the
        // operator returns or reconciles unmatched transfers by hand.
        if (
          error instanceof DomainError &&
          error.code === ErrorCode.NotFound &&
          (await isUnmatchedTransfer(request, event.bankReference))
        ) {
          request.log.warn(
            { bankReference: event.bankReference },
            'bank reversed an unmatched transfer; reconcile it by hand',
          );
          return { received: true, unmatched: true };
        }
        // Unknown reference: 404, so the bank retries; a reversal that overtook its transfer's
        // notification then applies once the transfer is recorded.
        throw error;
      }
    };

    app.post(
      '/v1/bank/notifications',
      {
        config: { public: true },
        validatorCompiler: rawBodyValidator,
        schema: {
          operationId: 'receiveBankNotification',
          summary:
            'Bank provider notification: an inbound NGN transfer, its reversal, or the outcome of a return',
          description:
            'Called by the bank provider, not by merchants. Authenticated by the x-bank-signature ' +
            'HMAC over the raw body, not by an API key. Idempotent by the bank reference: a ' +
            'repeated notification answers 200 with the same deposit. A return outcome ' +
            '(transfer.return_completed / transfer.return_failed) names the reference we sent ' +
            'with the return. See docs/bank-notifications.md.',
          tags: ['bank'],
          security: [],
          headers: NotificationHeaders,
          body: NotificationBody,
          response: { 200: NotificationAnswer, ...notificationErrors },
        },
      },
      async (request) => {
        const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
        return handle(request, bank.parse(raw, request.headers));
      },
    );
  };
