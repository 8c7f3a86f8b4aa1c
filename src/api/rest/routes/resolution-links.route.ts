import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { Services } from '../../../container';
import { PayerChoiceRefused, ResolutionLinkRefused } from '../../../deposits';
import { LINK_LIFETIME } from '../../../domain/resolution-token';
import { requireSecretKey } from '../../../merchants';
import type { AddressLimiter } from '../../address-limit';
import { refusalPage, resolutionPage, type RenderedPage } from '../../payer-page/payer-page';
import { IdParams } from '../onramp.schemas';
import { errorResponses } from '../schemas';

const CreateResolutionLinkBody = Type.Object(
  {
    expires_in_seconds: Type.Optional(
      Type.Integer({
        minimum: LINK_LIFETIME.minSeconds,
        maximum: LINK_LIFETIME.maxSeconds,
        description: `How long the link works (default ${LINK_LIFETIME.defaultSeconds}, a day)`,
      }),
    ),
  },
  { additionalProperties: false },
);

const ResolutionLinkResponse = Type.Object({
  url: Type.String({
    description: '{PUBLIC_URL}/pay/resolve/{signed token}: send it to the payer',
  }),
  expires_at: Type.String({ format: 'date-time' }),
});

/** The merchant asks for a link (`all` keys only, like `/return`: no `scopes` in the config). */
export const resolutionLinkRoutes =
  (services: Services): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.post(
      '/v1/deposits/:id/resolution_link',
      {
        schema: {
          operationId: 'createResolutionLink',
          summary:
            'A signed link for the payer of a FLAGGED deposit: he converts at today’s rate (if allowed) or has it returned',
          tags: ['deposits'],
          params: IdParams,
          body: CreateResolutionLinkBody,
          response: { 201: ResolutionLinkResponse, ...errorResponses(400, 403, 404) },
        },
        // The body is optional: none means every default.
        preValidation: async (request) => {
          request.body ??= {};
        },
      },
      async (request, reply) => {
        const { merchantId } = requireSecretKey(request.principal!);
        const link = await services.resolutionLinks.create(
          request.em,
          merchantId,
          request.params.id,
          request.body?.expires_in_seconds,
        );
        return reply.code(201).send(link);
      },
    );
  };

const FORM_TYPE = 'application/x-www-form-urlencoded';
const FORM_LIMIT_BYTES = 1024;

const REFUSED_LINK = {
  unknown: [404, 'This link is not valid. Ask the merchant for a new one.'],
  expired: [410, 'This link has expired. Ask the merchant for a new one.'],
  superseded: [410, 'This link was replaced by a newer one. Use the latest link you received.'],
} as const;

const REFUSED_CHOICE = {
  invalid: [400, 'That is not one of the choices.'],
  not_offered: [400, 'That choice is not available for this transfer.'],
  no_rate: [409, 'No exchange rate is available right now. Please try again in a few minutes.'],
  no_account: [400, 'Enter the 10-digit number of the account you paid from.'],
  wrong_account: [400, 'That is not the account this transfer came from.'],
  locked: [
    403,
    'Too many wrong account numbers were entered: this transfer can no longer be decided here. The merchant will contact you.',
  ],
} as const;

/** The refusal's sentence; a wrong account number also says how many tries are left. */
function choiceMessage(error: PayerChoiceRefused, message: string): string {
  if (error.refusal !== 'wrong_account' || error.attemptsLeft === undefined) return message;
  const left = error.attemptsLeft;
  return left > 0
    ? `${message} ${left} ${left === 1 ? 'try is' : 'tries are'} left.`
    : REFUSED_CHOICE.locked[1];
}

/**
 * The payer's page (`/pay/resolve/{token}`): no API key (the signed token is the credential),
 * hidden from the OpenAPI document, HTML in every answer. An unknown or altered token counts
 * as a failed authentication of the address, so guessing tokens runs into the per-address
 * limit every gateway shares.
 */
export const payerPageRoutes =
  (services: Services, limiter: AddressLimiter): FastifyPluginAsyncTypebox =>
  async (app) => {
    // Only these routes read forms, and only small ones.
    app.addContentTypeParser(
      FORM_TYPE,
      { parseAs: 'string', bodyLimit: FORM_LIMIT_BYTES },
      (_request, body, done) => done(null, Object.fromEntries(new URLSearchParams(body as string))),
    );
    const params = Type.Object({ token: Type.String({ maxLength: 200 }) });
    const send = (reply: FastifyReply, page: RenderedPage) =>
      reply.code(page.status).headers(page.headers).send(page.body);

    const refused = async (request: FastifyRequest, reply: FastifyReply, error: unknown) => {
      if (error instanceof ResolutionLinkRefused) {
        if (error.refusal === 'unknown') {
          const limited = await limiter.countFailure(request.ip).catch(() => null);
          if (limited) {
            reply.header('retry-after', String(limited.retryAfterSeconds));
            return send(reply, refusalPage(429, 'Too many attempts. Please try again later.'));
          }
        }
        const [status, message] = REFUSED_LINK[error.refusal];
        return send(reply, refusalPage(status, message));
      }
      throw error;
    };

    app.get(
      '/pay/resolve/:token',
      { config: { public: true }, schema: { hide: true, params } },
      async (request, reply) => {
        try {
          return send(
            reply,
            resolutionPage(await services.resolutionLinks.view(request.em, request.params.token)),
          );
        } catch (error) {
          return refused(request, reply, error);
        }
      },
    );

    app.post(
      '/pay/resolve/:token',
      { config: { public: true }, schema: { hide: true, params } },
      async (request, reply) => {
        const form =
          request.headers['content-type']?.split(';')[0].trim().toLowerCase() === FORM_TYPE;
        const body =
          form && typeof request.body === 'object' ? (request.body as Record<string, unknown>) : {};
        try {
          await services.resolutionLinks.choose(request.em, request.params.token, {
            choice: body.choice,
            accountNumber: body.account_number,
            clientAddress: request.ip,
          });
        } catch (error) {
          if (error instanceof PayerChoiceRefused && error.refusal !== 'resolved') {
            // A wrong account number is a failed authentication of the address too: guessing
            // across many deposits runs into the per-address limit every gateway shares.
            if (error.refusal === 'wrong_account') {
              await limiter.countFailure(request.ip).catch(() => null);
            }
            const [status, message] = REFUSED_CHOICE[error.refusal];
            return send(reply, refusalPage(status, choiceMessage(error, message)));
          }
          // Resolved already (by this link or otherwise): the page says how, like after a choice.
          if (!(error instanceof PayerChoiceRefused)) return refused(request, reply, error);
        }
        // Post/redirect/get: a reload shows the outcome instead of posting again.
        return reply
          .code(303)
          .header('location', encodeURIComponent(request.params.token))
          .header('cache-control', 'no-store')
          .send();
      },
    );
  };
