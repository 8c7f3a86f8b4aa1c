import {
  expectErrorShape,
  FULL_CUSTOMER,
  MONNIFY_CUSTOMER,
  PAYSTACK_CUSTOMER,
} from '../support/bank-provider-e2e';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import {
  startMonnifyStandIn,
  type MonnifyStandIn,
  monnifySettings,
} from '../support/monnify-stand-in';
import { balanceOnramp, freshRate } from '../support/onramps';
import {
  startPaystackStandIn,
  type PaystackStandIn,
  paystackSettings,
} from '../support/paystack-stand-in';
import { sql } from '../support/sql';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

/**
 * BANK_PROVIDERS=paystack,monnify through the processes: new accounts come from Paystack
 * while it serves; when its account creation answers 5xx the onramp's account comes from
 * Monnify (failover), and Paystack is passed over while it cools down; an onramp whose
 * customer neither provider can serve is refused, naming the fields.
 */
const BVN_OR_NIN = 'customer.bvn or customer.nin';

describe('bank provider failover through the processes', () => {
  let paystack: PaystackStandIn;
  let monnify: MonnifyStandIn;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let merchantId: string;

  beforeAll(async () => {
    [paystack, monnify] = await Promise.all([startPaystackStandIn(), startMonnifyStandIn()]);
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        BANK_PROVIDERS: 'paystack,monnify',
        ...paystackSettings(paystack),
        ...monnifySettings(monnify),
        // Long enough that no health check or cooldown ends inside this file.
        BANK_PROVIDER_COOLDOWN_SECONDS: '600',
        BANK_PROVIDER_CHECK_SECONDS: '600',
      },
    });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Failover Co'));
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([paystack?.close(), monnify?.close()]);
  });

  const create = async (customer?: Record<string, string>) => {
    const rate = await freshRate(stack.url, key);
    return request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: { ...balanceOnramp(rate.rate_id), ...(customer ? { customer } : {}) },
    });
  };
  const paystackNumbers = () => paystack.books.accounts.map((a) => a.accountNumber);
  const monnifyNumbers = (onrampId: string) =>
    monnify.state.reserved.get(onrampId)?.accounts.map((a) => a.accountNumber) ?? [];
  const dedicatedAccountCalls = () =>
    paystack.requests.filter((r) => r.method === 'POST' && r.path === '/dedicated_account').length;
  const onrampCount = async () =>
    (
      await sql<{ n: number }>(
        databaseUrl,
        'select count(*)::int as n from onramps where merchant_id = $1',
        [merchantId],
      )
    )[0].n;
  const bankHealth = async () => (await request(stack.url, 'GET', '/health')).body.providers.bank;

  it('/health lists both providers in BANK_PROVIDERS order', async () => {
    const bank = await eventually(async () => {
      const states = await bankHealth();
      return states.every((s: { checked_at: string | null }) => s.checked_at) ? states : undefined;
    });
    expect(bank).toEqual([
      { name: 'paystack', ok: true, checked_at: expect.any(String) },
      { name: 'monnify', ok: true, checked_at: expect.any(String) },
    ]);
  });

  it('the first provider serves while it can', async () => {
    const created = await create(FULL_CUSTOMER);
    expect(created.status).toBe(201);
    expect(paystackNumbers()).toContain(created.body.virtual_account.account_number);
    expect(monnify.state.reserved.has(created.body.onramp_id)).toBe(false);
  });

  it("Paystack's account creation answering 5xx: the onramp's account comes from Monnify", async () => {
    const calls = dedicatedAccountCalls();
    paystack.failNext('POST /dedicated_account', 503);
    const created = await create(FULL_CUSTOMER);
    expect(created.status).toBe(201);
    // Paystack was asked and failed; Monnify then reserved the account the onramp shows.
    expect(dedicatedAccountCalls()).toBe(calls + 1);
    expect(paystackNumbers()).not.toContain(created.body.virtual_account.account_number);
    expect(monnifyNumbers(created.body.onramp_id)).toContain(
      created.body.virtual_account.account_number,
    );
    expect(monnify.state.reserved.get(created.body.onramp_id)?.bvn).toBe(FULL_CUSTOMER.bvn);

    // /health shows Paystack failed; while it cools down new accounts go to Monnify at once.
    const [paystackState, monnifyState] = await bankHealth();
    expect(paystackState).toMatchObject({ name: 'paystack', ok: false });
    expect(paystackState.detail).toEqual(expect.any(String));
    expect(paystackState.detail).not.toContain(paystack.secretKey);
    expect(monnifyState).toMatchObject({ name: 'monnify', ok: true });
    const next = await create(FULL_CUSTOMER);
    expect(next.status).toBe(201);
    expect(monnifyNumbers(next.body.onramp_id)).toContain(next.body.virtual_account.account_number);
    expect(dedicatedAccountCalls()).toBe(calls + 1);
  });

  it('a customer only one provider can serve goes to that one, even past a cooling one', async () => {
    // Paystack is cooling down (the test before) but is the only one with names and phone.
    const toPaystack = await create(PAYSTACK_CUSTOMER);
    expect(toPaystack.status).toBe(201);
    expect(paystackNumbers()).toContain(toPaystack.body.virtual_account.account_number);
    const toMonnify = await create(MONNIFY_CUSTOMER);
    expect(toMonnify.status).toBe(201);
    expect(monnifyNumbers(toMonnify.body.onramp_id)).toContain(
      toMonnify.body.virtual_account.account_number,
    );
  });

  it('an onramp neither provider can serve: 422 missing_parameter naming the fields, nothing created', async () => {
    const before = await onrampCount();
    const cases = [
      [undefined, 'customer.first_name, customer.last_name, customer.phone, ' + BVN_OR_NIN],
      [{ first_name: 'Adaeze', phone: '+2348031234567' }, `customer.last_name, ${BVN_OR_NIN}`],
      [{ last_name: 'Okafor' }, `customer.first_name, customer.phone, ${BVN_OR_NIN}`],
    ] as const;
    for (const [customer, fields] of cases) {
      const refused = await create(customer);
      expectErrorShape(refused, 422, 'missing_parameter');
      // Both providers' missing fields, named as in the request body.
      expect(refused.body.error.message).toBe(`Missing required parameter: ${fields}`);
    }
    expect(await onrampCount()).toBe(before);
  });
});
