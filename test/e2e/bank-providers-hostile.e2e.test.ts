import { createHmac } from 'node:crypto';
import {
  allDeposits,
  expectErrorShape,
  FULL_CUSTOMER,
  notify,
  type PostedNotification,
} from '../support/bank-provider-e2e';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import {
  startMonnifyStandIn,
  type MonnifyStandIn,
  monnifySettings,
} from '../support/monnify-stand-in';
import { balanceOnramp, createOnramp, freshRate } from '../support/onramps';
import {
  startPaystackStandIn,
  type PaystackStandIn,
  paystackSettings,
} from '../support/paystack-stand-in';
import { sql } from '../support/sql';
import { createMerchant, startStack, type Stack } from '../support/stack';

type Json = Record<string, unknown>;

/** Both providers sign `hex(HMAC-SHA512(secret key, raw body))`; written apart from src/. */
const hmac = (secret: string, body: string) =>
  createHmac('sha512', secret).update(body).digest('hex');

/** An account number no provider opened for us. */
const NOT_OURS = '9990001234';

/**
 * Hostile bodies at both provider routes: each answered 4xx in the error shape, and none
 * makes a deposit or an unmatched transfer, nor moves anything already there.
 */
describe('hostile notifications at the provider routes', () => {
  let paystack: PaystackStandIn;
  let monnify: MonnifyStandIn;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let paystackAccount: string;
  let monnifyAccount: string;

  beforeAll(async () => {
    [paystack, monnify] = await Promise.all([startPaystackStandIn(), startMonnifyStandIn()]);
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        BANK_PROVIDERS: 'paystack,monnify',
        ...paystackSettings(paystack),
        ...monnifySettings(monnify),
        // No sweep inside this file: what a body changes is the route's doing alone.
        BANK_SWEEP_SECONDS: '3600',
      },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Hostile Co'));
    const rate = await freshRate(stack.url, key);
    const body = { ...balanceOnramp(rate.rate_id), customer: FULL_CUSTOMER };
    paystackAccount = (await createOnramp(stack.url, key, body)).virtual_account.account_number;
    paystack.failNext('POST /dedicated_account', 500);
    monnifyAccount = (await createOnramp(stack.url, key, body)).virtual_account.account_number;
    expect(paystack.books.accounts.map((a) => a.accountNumber)).toContain(paystackAccount);
    expect(paystack.books.accounts.map((a) => a.accountNumber)).not.toContain(monnifyAccount);
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([paystack?.close(), monnify?.close()]);
  });

  const unmatchedCount = async () =>
    (await sql<{ n: number }>(databaseUrl, 'select count(*)::int as n from unmatched_transfers'))[0]
      .n;

  /** A signed Paystack `charge.success` (paid at the stand-in) with `change` applied to it. */
  function paystackBody(change: (data: Json) => void, account = paystackAccount) {
    const payment = paystack.pay(account, 500_000);
    const parsed = JSON.parse(payment.rawBody) as { event: string; data: Json };
    change(parsed.data);
    return JSON.stringify(parsed);
  }
  /** A signed Monnify `SUCCESSFUL_TRANSACTION` (paid at the stand-in) with `change` applied. */
  function monnifyBody(change: (data: Json) => void) {
    const payment = monnify.pay(monnifyAccount, '5000.00');
    const parsed = JSON.parse(payment.rawBody) as { eventType: string; eventData: Json };
    change(parsed.eventData);
    return JSON.stringify(parsed);
  }
  const oversized = (body: string) => body.replace(/}$/, `,"padding":"${'x'.repeat(70_000)}"}`);

  const providers = {
    paystack: {
      signed: (body: string): PostedNotification => ({
        rawBody: body,
        headers: {
          'content-type': 'application/json',
          'x-paystack-signature': hmac(paystack.secretKey, body),
        },
      }),
      cases: (): [string, string, number, string][] => [
        ['malformed JSON', '{"event":"charge.success","data":{', 400, 'invalid_parameter'],
        ['a JSON array', '[]', 400, 'invalid_parameter'],
        [
          'oversized (> 64 KiB)',
          oversized(paystackBody(() => undefined)),
          413,
          'payload_too_large',
        ],
        [
          'an account no provider opened for us',
          paystackBody((d) => {
            (d.authorization as Json).receiver_bank_account_number = NOT_OURS;
          }),
          404,
          'not_found',
        ],
        [
          'an account not ours, though Paystack holds the transfer',
          paystack.pay(NOT_OURS, 500_000).rawBody,
          404,
          'not_found',
        ],
        ['wrong currency', paystackBody((d) => (d.currency = 'USD')), 400, 'invalid_parameter'],
        ['fractional kobo', paystackBody((d) => (d.amount = 500000.5)), 400, 'invalid_parameter'],
        [
          'an amount as a string',
          paystackBody((d) => (d.amount = '5000')),
          400,
          'invalid_parameter',
        ],
        ['a negative amount', paystackBody((d) => (d.amount = -500000)), 400, 'invalid_parameter'],
        ['no reference', paystackBody((d) => delete d.reference), 400, 'missing_parameter'],
      ],
    },
    monnify: {
      signed: (body: string): PostedNotification => ({
        rawBody: body,
        headers: {
          'content-type': 'application/json',
          'monnify-signature': hmac(monnify.secretKey, body),
        },
      }),
      cases: (): [string, string, number, string][] => [
        ['malformed JSON', '{"eventType":"SUCCESSFUL_TRANSACTION",', 400, 'invalid_parameter'],
        ['a JSON array', '[]', 400, 'invalid_parameter'],
        ['oversized (> 64 KiB)', oversized(monnifyBody(() => undefined)), 413, 'payload_too_large'],
        [
          'an account no provider opened for us',
          monnifyBody((d) => {
            (d.destinationAccountInformation as Json).accountNumber = NOT_OURS;
          }),
          404,
          'not_found',
        ],
        ['wrong currency', monnifyBody((d) => (d.currency = 'USD')), 400, 'invalid_parameter'],
        [
          'more than 2 decimals',
          monnifyBody((d) => (d.amountPaid = 5000.001)),
          400,
          'invalid_parameter',
        ],
        ['a negative amount', monnifyBody((d) => (d.amountPaid = -5000)), 400, 'invalid_parameter'],
        [
          'no reference',
          monnifyBody((d) => delete d.transactionReference),
          400,
          'missing_parameter',
        ],
      ],
    },
  };

  it.each(['paystack', 'monnify'] as const)(
    '%s: every hostile body answers 4xx in the error shape and changes nothing',
    async (name) => {
      const provider = providers[name];
      const deposits = await allDeposits(stack.url, key);
      const unmatched = await unmatchedCount();
      for (const [what, body, status, code] of provider.cases()) {
        const signed = provider.signed(body);
        const answer = await notify(stack.url, name, signed);
        expect({ what, status: answer.status, code: answer.body?.error?.code }).toEqual({
          what,
          status,
          code,
        });
        expectErrorShape(answer, status, code);
        if (status === 413) continue;
        // The same body unsigned, and signed with another key: 401 before it is read.
        const headerName = Object.keys(signed.headers).find((h) => h !== 'content-type')!;
        const { [headerName]: _dropped, ...unsigned } = signed.headers;
        expectErrorShape(
          await notify(stack.url, name, { ...signed, headers: unsigned }),
          401,
          'unauthorized',
        );
        const forged = { ...signed.headers, [headerName]: hmac('another-key', body) };
        expectErrorShape(
          await notify(stack.url, name, { ...signed, headers: forged }),
          401,
          'unauthorized',
        );
      }
      expect(await allDeposits(stack.url, key)).toEqual(deposits);
      expect(await unmatchedCount()).toBe(unmatched);
    },
  );

  it("a notification naming another provider's account is 404 and credits nothing", async () => {
    const deposits = await allDeposits(stack.url, key);
    const cases = [
      // Signed by Paystack (and held by it), naming the account Monnify opened.
      ['paystack', providers.paystack.signed(paystackBody(() => undefined, monnifyAccount))],
      // Signed by Monnify, naming the account Paystack opened.
      [
        'monnify',
        providers.monnify.signed(
          monnifyBody((d) => {
            (d.destinationAccountInformation as Json).accountNumber = paystackAccount;
          }),
        ),
      ],
    ] as const;
    for (const [name, notification] of cases) {
      expectErrorShape(await notify(stack.url, name, notification), 404, 'not_found');
    }
    expect(await allDeposits(stack.url, key)).toEqual(deposits);
  });

  it('a provider not in BANK_PROVIDERS, or no provider at all, is 404 in the error shape', async () => {
    for (const path of [
      '/bank/hmac/notifications',
      '/bank/sandbox/notifications',
      '/bank/nope/notifications',
    ]) {
      const answer = await request(stack.url, 'POST', path, { body: { event: 'x' } });
      expectErrorShape(answer, 404, 'not_found');
    }
  });
});
