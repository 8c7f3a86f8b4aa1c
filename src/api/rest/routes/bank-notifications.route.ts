import { Type } from 'typebox';
import type { FastifyPluginAsync, FastifyRequest, FastifySchemaCompiler } from 'fastify';
import type { BankNotificationAdapter } from '../../../adapters/bank/bank-adapter';
import {
  BANK_SIGNATURE_HEADER,
  BANK_TIMESTAMP_HEADER,
  HmacBankAdapter,
} from '../../../adapters/bank/hmac-bank-adapter';
import { PooledBankProvider } from '../../../adapters/bank/pooled-bank-provider';
import { handleBankEvent } from './bank-event-handler';
import { DEPOSIT_STATUSES } from '../../../domain/deposit-state-machine';
import { DomainError, ErrorCode } from '../../../domain/errors';
import type { Services } from '../../../container';
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
  confirmed: Type.Optional(
    Type.Literal(false, {
      description: "The provider's API does not confirm the transfer: nothing was credited",
    }),
  ),
  ignored: Type.Optional(
    Type.Literal(true, { description: 'A kind of notification this service does not act on' }),
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
    const generic =
      adapter ?? (secret ? new HmacBankAdapter({ secret, clock: services.clock }) : null);

    // This plugin's context only: keep the exact bytes the signature was computed over.
    app.removeAllContentTypeParsers();
    app.addContentTypeParser(
      'application/json',
      { parseAs: 'buffer', bodyLimit: app.initialConfig.bodyLimit },
      (_request, body, done) => done(null, body),
    );
    const rawOf = (request: FastifyRequest) =>
      Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);

    // The generic format of v0.1, for the pool's accounts (sandbox and hmac).
    // Looked up per request: registration (the OpenAPI document) reads only the configuration.
    const pooled = () =>
      services.bankProviders.get('hmac') ??
      services.bankProviders.get('sandbox') ??
      new PooledBankProvider({ name: 'hmac', clock: services.clock });
    if (generic) {
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
        async (request) =>
          handleBankEvent(
            services,
            request,
            pooled(),
            generic.parse(rawOf(request), request.headers),
          ),
      );
    }

    app.post<{ Params: { provider: string } }>(
      '/bank/:provider/notifications',
      {
        config: { public: true },
        validatorCompiler: rawBodyValidator,
        schema: {
          operationId: 'receiveProviderNotification',
          summary: "A bank provider's notification, in that provider's own format",
          description:
            'Called by a provider in BANK_PROVIDERS (paystack: x-paystack-signature; monnify: ' +
            'monnify-signature; hmac and sandbox: the generic x-bank-signature), not by ' +
            'merchants. Checked over the raw body; an inbound transfer is confirmed through the ' +
            "provider's API before anything is credited. Idempotent by the provider's " +
            'reference. See docs/providers.md.',
          tags: ['bank'],
          security: [],
          params: Type.Object({
            provider: Type.String({ description: 'A name in BANK_PROVIDERS', maxLength: 32 }),
          }),
          body: Type.Object({}, { additionalProperties: true }),
          response: { 200: NotificationAnswer, ...notificationErrors },
        },
      },
      async (request) => {
        const provider = services.bankProviders.get(request.params.provider);
        if (!provider) {
          throw new DomainError(ErrorCode.NotFound, `No bank provider ${request.params.provider}`);
        }
        const notifications = provider.pooled && adapter ? adapter : provider.notifications;
        return handleBankEvent(
          services,
          request,
          provider,
          notifications.parse(rawOf(request), request.headers),
        );
      },
    );
  };
