import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import type { SentRequest } from './oracle';
import { CONTENT_TYPES, hostileBodyText, hostileJson } from './hostile';
import type { FuzzWorld } from './world';

/** The providers' notification secrets in the fuzz stack (their stand-ins' keys). */
export interface ProviderSecrets {
  paystack: string;
  monnify: string;
}

const hmac512 = (secret: string, body: string | Buffer) =>
  createHmac('sha512', secret).update(body).digest('hex');

/** Paystack's `charge.success` and Monnify's `SUCCESSFUL_TRANSACTION`, fitting or hostile. */
function providerBody(world: FuzzWorld, provider: 'paystack' | 'monnify') {
  const { a, b } = world;
  const hostile = hostileJson(world);
  const field = <T>(fitting: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: fitting }, { weight: 1, arbitrary: hostile });
  const account = field(fc.constantFrom(...a.accountNumbers, ...b.accountNumbers, '0000000000'));
  const reference = field(
    fc.oneof(fc.constantFrom(...a.bankReferences), fc.stringMatching(/^FZ[0-9A-F]{6,20}$/)),
  );
  const paystack = fc.record(
    {
      event: field(fc.constantFrom('charge.success', 'transfer.success', 'transfer.failed', 'x')),
      data: field(
        fc.record(
          {
            reference,
            amount: field(fc.constantFrom(500000, 1, 0, -5, 1.5, 2e30, '500000')),
            currency: field(fc.constantFrom('NGN', 'USD')),
            channel: field(fc.constantFrom('dedicated_nuban', 'card')),
            status: field(fc.constantFrom('success', 'failed')),
            paid_at: field(fc.constantFrom(new Date().toISOString(), 'yesterday')),
            authorization: field(
              fc.record(
                {
                  channel: field(fc.constant('dedicated_nuban')),
                  receiver_bank_account_number: account,
                  sender_name: field(fc.string({ unit: 'grapheme', maxLength: 30 })),
                  sender_bank_account_number: field(fc.constantFrom('XXXXXX0011', '9876543210')),
                },
                { requiredKeys: [] },
              ),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  const monnify = fc.record(
    {
      eventType: field(fc.constantFrom('SUCCESSFUL_TRANSACTION', 'SUCCESSFUL_DISBURSEMENT', 'x')),
      eventData: field(
        fc.record(
          {
            transactionReference: reference,
            amountPaid: field(fc.constantFrom('5000.00', 5000.5, '5000.505', 0, -1, '1e3')),
            currency: field(fc.constantFrom('NGN', 'USD')),
            paymentStatus: field(fc.constantFrom('PAID', 'PENDING')),
            paidOn: field(fc.constantFrom('2026-11-28 10:00:00.0', 'never')),
            product: field(fc.record({ type: fc.constant('RESERVED_ACCOUNT'), reference })),
            destinationAccountInformation: field(
              fc.record({ accountNumber: account, bankCode: fc.constant('50515') }),
            ),
            paymentSourceInformation: field(
              fc.array(fc.record({ accountNumber: account, bankCode: fc.constant('058') }), {
                maxLength: 2,
              }),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  return fc.oneof(
    {
      weight: 4,
      arbitrary: (provider === 'paystack' ? paystack : monnify).map((v) => JSON.stringify(v)),
    },
    { weight: 1, arbitrary: hostileBodyText() },
  );
}

/**
 * Paystack's and Monnify's notification routes (and providers that are not configured): the
 * provider's own signature (hex HMAC-SHA512 of the raw body) right, wrong or missing, over
 * documented-shape bodies with hostile fields, or garbage. A correctly signed transfer is still
 * confirmed with the provider's API (the stand-ins), so none of these mints a deposit.
 */
export function providerRequest(
  world: FuzzWorld,
  secrets: ProviderSecrets,
): fc.Arbitrary<SentRequest> {
  return fc
    .constantFrom('paystack', 'monnify', 'nobody', 'paystack%00', '..%2f..%2fv1')
    .chain((provider) =>
      fc.record({
        provider: fc.constant(provider),
        body: providerBody(world, provider === 'monnify' ? 'monnify' : 'paystack'),
        signing: fc.constantFrom('valid', 'valid', 'valid', 'wrong', 'missing', 'garbage'),
        contentType: fc.oneof(
          { weight: 6, arbitrary: fc.constant('application/json') },
          { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
        ),
      }),
    )
    .map(({ provider, body, signing, contentType }) => {
      const secret = provider === 'monnify' ? secrets.monnify : secrets.paystack;
      const header = provider === 'monnify' ? 'monnify-signature' : 'x-paystack-signature';
      const headers: Record<string, string> = { 'content-type': contentType };
      if (signing === 'valid') headers[header] = hmac512(secret, body);
      if (signing === 'wrong') headers[header] = hmac512(`${secret}x`, body);
      if (signing === 'garbage') headers[header] = 'z'.repeat(3000);
      return {
        transport: 'bank',
        method: 'POST',
        path: `/bank/${provider}/notifications`,
        headers,
        body,
        credential: signing === 'valid' ? 'bank' : 'bad signature',
      };
    });
}
