import { createHmac } from 'node:crypto';
import fc from 'fast-check';
import type { SentRequest } from './oracle';
import { CONTENT_TYPES, hostileBodyText, hostileJson } from './hostile';
import { BANK_SECRET, type FuzzWorld } from './world';

export const BANK_PATH = '/v1/bank/notifications';

function signature(timestamp: string, body: string | Buffer, secret = BANK_SECRET): string {
  return createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex');
}

/** A notification body: the documented shapes with fitting or hostile fields, or garbage. */
function notificationBody(world: FuzzWorld): fc.Arbitrary<string | Buffer> {
  const { a, b } = world;
  const hostile = hostileJson(world);
  const field = <T>(fitting: fc.Arbitrary<T>) =>
    fc.oneof({ weight: 4, arbitrary: fitting }, { weight: 1, arbitrary: hostile });
  const reference = fc.oneof(
    fc.constantFrom(...a.bankReferences, ...b.bankReferences),
    fc.stringMatching(/^FZ[0-9A-F]{6,20}$/),
  );
  const transfer = fc.record(
    {
      event: field(fc.constant('transfer.received')),
      data: field(
        fc.record(
          {
            account_number: field(
              fc.constantFrom(...a.accountNumbers, ...b.accountNumbers, '0000000000'),
            ),
            amount: field(
              fc.constantFrom('5000.00', '1', '0', '-5', '1500', '999999999999.99', '1.234', '2e3'),
            ),
            currency: field(fc.constantFrom('NGN', 'USD', 'ngn')),
            reference: field(reference),
            sender_name: field(fc.string({ unit: 'grapheme', maxLength: 30 })),
            sender_account_number: field(
              fc.constantFrom('9876543210', '', '987654321', '98765432101', 'x'.repeat(500)),
            ),
            sender_bank: field(fc.constant('GTBank')),
            transferred_at: field(
              fc.constantFrom(new Date().toISOString(), '2026-13-45', 'yesterday'),
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    },
    { requiredKeys: [] },
  );
  const reversal = fc.record({
    event: field(fc.constant('transfer.reversed')),
    data: field(
      fc.record({
        reference: field(reference),
        reversed_at: field(fc.constant(new Date().toISOString())),
      }),
    ),
  });
  // The outcome of one of our returns: its reference is a return attempt id (none of the
  // world's deposits is returning, so every one is unknown: 200 unmatched) or anything else.
  const returnOutcome = fc.record(
    {
      event: field(fc.constantFrom('transfer.return_completed', 'transfer.return_failed')),
      data: field(
        fc.record(
          {
            reference: field(fc.oneof(reference, fc.stringMatching(/^ret_[0-9a-z]{6,26}$/))),
            reason: field(fc.string({ unit: 'grapheme', maxLength: 600 })),
            completed_at: field(fc.constantFrom(new Date().toISOString(), '2026-02-30T25:00')),
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
      arbitrary: fc.oneof(transfer, reversal, returnOutcome).map((v) => JSON.stringify(v)),
    },
    { weight: 1, arbitrary: hostileBodyText() },
  );
}

/** Signed right over the exact bytes, or wrongly in one of many ways. */
export function bankRequest(world: FuzzWorld): fc.Arbitrary<SentRequest> {
  return fc
    .record({
      body: notificationBody(world),
      signing: fc.constantFrom(
        'valid',
        'valid',
        'valid',
        'valid-upper',
        'rotating',
        'wrong-secret',
        'stale',
        'future',
        'non-numeric-ts',
        'missing',
        'garbage',
        'other-body',
      ),
      contentType: fc.oneof(
        { weight: 6, arbitrary: fc.constant('application/json') },
        { weight: 1, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
      ),
      credential: fc.constantFrom<string | undefined>(
        undefined,
        undefined,
        `Bearer ${world.a.apiKey}`,
      ),
    })
    .map(({ body, signing, contentType, credential }) => {
      const now = Math.floor(Date.now() / 1000);
      let timestamp = String(now);
      let sig = signature(timestamp, body);
      const headers: Record<string, string> = { 'content-type': contentType };
      if (signing === 'valid-upper') sig = sig.toUpperCase();
      if (signing === 'wrong-secret') sig = signature(timestamp, body, `${BANK_SECRET}x`);
      if (signing === 'stale' || signing === 'future') {
        timestamp = String(now + (signing === 'stale' ? -1000 : 1000));
        sig = signature(timestamp, body);
      }
      if (signing === 'non-numeric-ts') timestamp = '1e9';
      if (signing === 'other-body') sig = signature(timestamp, `${body.toString()} `);
      if (signing !== 'missing') {
        headers['x-bank-timestamp'] = timestamp;
        headers['x-bank-signature'] =
          signing === 'garbage'
            ? 'v1=zz,v0=,,,=' + 'f'.repeat(3000)
            : signing === 'rotating'
              ? `v1=${'0'.repeat(64)},v0=abc,v1=${sig}`
              : `v1=${sig}`;
      }
      if (credential) headers.authorization = credential;
      return {
        transport: 'bank',
        method: 'POST',
        path: BANK_PATH,
        headers,
        body,
        // The bank is trusted with any account once its signature holds; otherwise nobody is.
        credential: ['valid', 'valid-upper', 'rotating'].includes(signing)
          ? 'bank'
          : 'bad signature',
      };
    });
}
