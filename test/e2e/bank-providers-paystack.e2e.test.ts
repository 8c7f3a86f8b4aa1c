import {
  allDeposits,
  depositNow,
  depositUntil,
  expectErrorShape,
  expectPaidOnChain,
  ledgerRowsOf,
  notify,
  PAYSTACK_CUSTOMER,
} from '../support/bank-provider-e2e';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { autoWithdrawOnramp, balanceOnramp, createOnramp, freshRate } from '../support/onramps';
import {
  startPaystackStandIn,
  type PaystackStandIn,
  paystackSettings,
} from '../support/paystack-stand-in';
import { sql } from '../support/sql';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

/**
 * BANK_PROVIDERS=paystack through the gateway and the runner, against the Paystack stand-in
 * and the local chains: onramps get dedicated accounts from Paystack, signed `charge.success`
 * notifications become deposits only once Paystack's verify confirms them, the sweep finds a
 * transfer whose notification never came, and AUTO_WITHDRAW deposits are paid on-chain.
 */
describe('Paystack dedicated virtual accounts through the processes', () => {
  let chains: TestChains;
  let paystack: PaystackStandIn;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    [chains, paystack] = await Promise.all([startTestChains(), startPaystackStandIn()]);
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        ...chains.env,
        RATE_LIMIT_PER_MINUTE: '100000',
        PAYOUT_POLL_MS: '300',
        BANK_PROVIDERS: 'paystack',
        ...paystackSettings(paystack),
        BANK_SWEEP_SECONDS: '2',
        BANK_SWEEP_LOOKBACK_HOURS: '1',
      },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Paystack Co'));
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([chains?.stop(), paystack?.close()]);
  });

  const post = (notification: { rawBody: string; headers: Record<string, string> }) =>
    notify(stack.url, 'paystack', notification);

  /** An onramp whose account Paystack opened (the number is one the stand-in issued). */
  async function paystackOnramp(body: Record<string, unknown>) {
    const onramp = await createOnramp(stack.url, key, { ...body, customer: PAYSTACK_CUSTOMER });
    const number = onramp.virtual_account.account_number;
    expect(paystack.books.accounts.map((a) => a.accountNumber)).toContain(number);
    return { onramp, number };
  }
  const withReference = async (reference: string) =>
    (await allDeposits(stack.url, key)).filter((d) => d.bank_reference === reference);

  it('/health lists the paystack provider, checked against its API', async () => {
    const health = await eventually(async () => {
      const response = await request(stack.url, 'GET', '/health');
      return response.body.providers?.bank?.[0]?.checked_at ? response.body : undefined;
    });
    expect(health.providers.bank).toEqual([
      { name: 'paystack', ok: true, checked_at: expect.any(String) },
    ]);
  });

  it('an onramp gets a Paystack account; a signed charge.success becomes a deposit paid on-chain', async () => {
    const rate = await freshRate(stack.url, key, 'USDC');
    const body = autoWithdrawOnramp(rate.rate_id);
    const { onramp, number } = await paystackOnramp(body);
    expect(onramp.virtual_account).toMatchObject({ bank_name: 'Wema Bank', bank_code: '035' });

    const payment = paystack.pay(number, 1_500_000);
    const answer = await post(payment);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      received: true,
      deposit_id: expect.stringMatching(/^dep_/),
      status: expect.any(String),
    });
    // Confirmed through Paystack's own API before anything was credited.
    const verified = paystack.requests.filter(
      (r) => r.path === `/transaction/verify/${payment.reference}`,
    );
    expect(verified.length).toBeGreaterThanOrEqual(1);

    const settled = await depositUntil(stack.url, key, answer.body.deposit_id, 'SETTLED');
    expect(settled).toMatchObject({
      onramp_id: onramp.onramp_id,
      amount_ngn: '15000.00',
      bank_reference: payment.reference,
      chain: 'BASE',
      asset: 'USDC',
    });
    await expectPaidOnChain(chains, settled, body.settlement.destination_address as string);
  });

  it('a replayed charge.success changes nothing: the same deposit, no second deposit or posting', async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await paystackOnramp(balanceOnramp(rate.rate_id));
    const payment = paystack.pay(number, 730_050);
    const first = await post(payment);
    expect(first.status).toBe(200);
    const id = first.body.deposit_id as string;
    await depositUntil(stack.url, key, id, 'SETTLED');
    const before = {
      deposits: await allDeposits(stack.url, key),
      ledger: await ledgerRowsOf(stack.url, key, id),
    };
    expect(before.ledger.length).toBeGreaterThan(0);

    for (let i = 0; i < 3; i += 1) {
      const again = await post(payment);
      expect(again.status).toBe(200);
      expect(again.body).toEqual({ received: true, deposit_id: id, status: 'SETTLED' });
    }
    expect(await allDeposits(stack.url, key)).toEqual(before.deposits);
    expect(await ledgerRowsOf(stack.url, key, id)).toEqual(before.ledger);
    expect(await withReference(payment.reference)).toHaveLength(1);
    expect((await depositNow(stack.url, key, id)).amount_ngn).toBe('7300.50');
  });

  it('a wrongly signed charge.success is 401 in the error shape and credits nothing', async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await paystackOnramp(balanceOnramp(rate.rate_id));
    // A real transfer at Paystack, but its notification signed with another key. Paid three
    // hours ago, so the sweep (one hour back) cannot be what credits it.
    const payment = paystack.pay(number, 500_000, { paidAt: new Date(Date.now() - 3 * 3_600_000) });
    const forged = { ...payment.headers, 'x-paystack-signature': 'ab'.repeat(64) };
    expectErrorShape(await post({ ...payment, headers: forged }), 401, 'unauthorized');
    const { 'x-paystack-signature': _dropped, ...unsigned } = payment.headers;
    expectErrorShape(await post({ ...payment, headers: unsigned }), 401, 'unauthorized');
    expect(await withReference(payment.reference)).toEqual([]);
  });

  it("a notification Paystack's verify does not confirm credits nothing", async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await paystackOnramp(balanceOnramp(rate.rate_id));
    // Out of the sweep's window, so only the notification could credit it.
    const paidAt = new Date(Date.now() - 3 * 3_600_000);
    const failed = paystack.pay(number, 400_000, { paidAt });
    paystack.disagree(failed.reference, { status: 'failed' });
    const unknown = paystack.pay(number, 400_000, { paidAt });
    paystack.disagree(unknown.reference, 'unknown');
    const other = paystack.pay(number, 400_000, { paidAt });
    paystack.disagree(other.reference, { amount: 40_000 });
    for (const payment of [failed, unknown, other]) {
      const answer = await post(payment);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ received: true, confirmed: false });
      expect(await withReference(payment.reference)).toEqual([]);
    }
  });

  it('a signed event of a kind we do not act on answers 200 ignored', async () => {
    const before = await allDeposits(stack.url, key);
    for (const [event, data] of [
      ['subscription.create', { id: 1 }],
      [
        'charge.success',
        { channel: 'card', reference: 'card-1', amount: 10000, status: 'success' },
      ],
      ['transfer.success', { reference: 'someone-elses-transfer', amount: 10000 }],
    ] as const) {
      const answer = await post(paystack.signedNotification(event, data));
      expect({ event, status: answer.status, body: answer.body }).toEqual({
        event,
        status: 200,
        body: { received: true, ignored: true },
      });
    }
    expect(await allDeposits(stack.url, key)).toEqual(before);
  });

  it('the sweep finds a transfer whose notification never came', async () => {
    const rate = await freshRate(stack.url, key);
    const { onramp, number } = await paystackOnramp(balanceOnramp(rate.rate_id));
    const charge = paystack.record(number, 612_345);
    // From the moment Paystack holds it, within a few sweeps (BANK_SWEEP_SECONDS=2).
    const [found] = await eventually(async () => {
      const rows = await withReference(charge.reference);
      return rows.length > 0 ? rows : undefined;
    }, 30_000);
    expect(await depositNow(stack.url, key, found.deposit_id)).toMatchObject({
      onramp_id: onramp.onramp_id,
      amount_ngn: '6123.45',
      bank_reference: charge.reference,
    });
    // Later sweeps see it again and add nothing.
    await new Promise((resolve) => setTimeout(resolve, 4_000));
    expect(await withReference(charge.reference)).toHaveLength(1);
  });

  it('the sweep keeps a transfer Paystack lists into an account we never recorded as unmatched', async () => {
    // Its notification would be refused (404): no account of ours has the number.
    const charge = paystack.record('9990004321', 250_000);
    const rows = await eventually(async () => {
      const found = await sql<{ account_number: string; amount_ngn: string }>(
        databaseUrl,
        'select account_number, amount_ngn::text from unmatched_transfers where bank_reference = $1',
        [charge.reference],
      );
      return found.length > 0 ? found : undefined;
    }, 30_000);
    expect(rows).toEqual([{ account_number: '9990004321', amount_ngn: '2500.00' }]);
    expect(await withReference(charge.reference)).toEqual([]);
  });

  it("a FLAGGED Paystack deposit cannot be returned automatically: Paystack masks the payer's account", async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await paystackOnramp(balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const first = await post(paystack.pay(number, 2_000_000));
    expect(first.status).toBe(200);
    // A second transfer to a THROWAWAY onramp is FLAGGED.
    const second = await post(paystack.pay(number, 500_000));
    expect(second.body.status).toBe('FLAGGED');
    const id = second.body.deposit_id as string;
    expect((await depositNow(stack.url, key, id)).payer).toMatchObject({
      account_name: 'RANDALL AKANBI HORTON',
      account_number_last4: null,
    });

    const refused = await request(stack.url, 'POST', `/v1/deposits/${id}/return`, { key });
    expectErrorShape(refused, 400, 'invalid_parameter');
    expect(refused.body.error.message).toBe(
      'The bank did not say which account sent this deposit, so it cannot be returned',
    );
    expect((await depositNow(stack.url, key, id)).status).toBe('FLAGGED');
    expect(paystack.requests.filter((r) => r.path === '/transfer')).toEqual([]);
  });
});
