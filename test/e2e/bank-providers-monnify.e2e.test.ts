import {
  allDeposits,
  depositNow,
  depositUntil,
  expectErrorShape,
  expectPaidOnChain,
  ledgerRowsOf,
  MONNIFY_CUSTOMER,
  notify,
} from '../support/bank-provider-e2e';
import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import {
  startMonnifyStandIn,
  type MonnifyStandIn,
  monnifySettings,
} from '../support/monnify-stand-in';
import { autoWithdrawOnramp, balanceOnramp, createOnramp, freshRate } from '../support/onramps';
import { sql } from '../support/sql';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';

/**
 * BANK_PROVIDERS=monnify through the gateway and the runner, against the Monnify stand-in and
 * the local chains: reserved accounts per onramp, `SUCCESSFUL_TRANSACTION` notifications
 * credited only once Monnify's transaction status confirms them, the sweep for lost ones, and
 * a FLAGGED deposit's return paid as a Monnify disbursement that its notification completes.
 */
describe('Monnify reserved accounts through the processes', () => {
  let chains: TestChains;
  let monnify: MonnifyStandIn;
  let stack: Stack;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    [chains, monnify] = await Promise.all([startTestChains(), startMonnifyStandIn()]);
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        ...chains.env,
        RATE_LIMIT_PER_MINUTE: '100000',
        PAYOUT_POLL_MS: '300',
        BANK_PROVIDERS: 'monnify',
        ...monnifySettings(monnify),
        BANK_SWEEP_SECONDS: '2',
        BANK_SWEEP_LOOKBACK_HOURS: '1',
        RETURN_FEE_NGN: '100',
      },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Monnify Co'));
  });
  afterAll(async () => {
    await stack?.stop();
    await Promise.all([chains?.stop(), monnify?.close()]);
  });

  const post = (notification: { rawBody: string; headers: Record<string, string> }) =>
    notify(stack.url, 'monnify', notification);

  /** An onramp whose account Monnify reserved (accountReference: the onramp id). */
  async function monnifyOnramp(body: Record<string, unknown>) {
    const onramp = await createOnramp(stack.url, key, { ...body, customer: MONNIFY_CUSTOMER });
    const number = onramp.virtual_account.account_number;
    const reserved = monnify.state.reserved.get(onramp.onramp_id);
    expect(reserved?.accounts.map((a) => a.accountNumber)).toContain(number);
    expect(reserved?.bvn).toBe(MONNIFY_CUSTOMER.bvn);
    // Paid at once, on purpose: Monnify's `paidOn` is to the second, so it reads as earlier
    // than the hand-out; the transfer must still be the onramp's (src/deposits/bank-intake.ts).
    return { onramp, number };
  }
  const withReference = async (reference: string) =>
    (await allDeposits(stack.url, key)).filter((d) => d.bank_reference === reference);

  it('/health lists the monnify provider, checked against its API', async () => {
    const health = await eventually(async () => {
      const response = await request(stack.url, 'GET', '/health');
      return response.body.providers?.bank?.[0]?.checked_at ? response.body : undefined;
    });
    expect(health.providers.bank).toEqual([
      { name: 'monnify', ok: true, checked_at: expect.any(String) },
    ]);
  });

  it('an onramp gets a Monnify account; a signed SUCCESSFUL_TRANSACTION becomes a deposit paid on-chain', async () => {
    const rate = await freshRate(stack.url, key, 'USDT');
    const body = autoWithdrawOnramp(rate.rate_id, { asset: 'USDT', chain: 'POLYGON' });
    const { onramp, number } = await monnifyOnramp(body);

    const payment = monnify.pay(number, '15000.00');
    const answer = await post(payment);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({
      received: true,
      deposit_id: expect.stringMatching(/^dep_/),
      status: expect.any(String),
    });
    expect(monnify.count('transactionStatus', payment.transactionReference)).toBeGreaterThanOrEqual(
      1,
    );

    const settled = await depositUntil(stack.url, key, answer.body.deposit_id, 'SETTLED');
    expect(settled).toMatchObject({
      onramp_id: onramp.onramp_id,
      amount_ngn: '15000.00',
      bank_reference: payment.transactionReference,
      chain: 'POLYGON',
      asset: 'USDT',
    });
    await expectPaidOnChain(chains, settled, body.settlement.destination_address as string);
  });

  it('a replayed SUCCESSFUL_TRANSACTION changes nothing: the same deposit, no second deposit or posting', async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await monnifyOnramp(balanceOnramp(rate.rate_id));
    const payment = monnify.pay(number, '7300.50', { amountAs: 'string' });
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
    expect(await withReference(payment.transactionReference)).toHaveLength(1);
  });

  it('a wrongly signed notification is 401 in the error shape and credits nothing', async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await monnifyOnramp(balanceOnramp(rate.rate_id));
    // Paid three hours ago: out of the sweep's one-hour window, so nothing else credits it.
    const payment = monnify.pay(number, '5000.00', {
      paidAt: new Date(Date.now() - 3 * 3_600_000),
    });
    const forged = { ...payment.headers, 'monnify-signature': 'ab'.repeat(64) };
    expectErrorShape(await post({ ...payment, headers: forged }), 401, 'unauthorized');
    const { 'monnify-signature': _dropped, ...unsigned } = payment.headers;
    expectErrorShape(await post({ ...payment, headers: unsigned }), 401, 'unauthorized');
    expect(await withReference(payment.transactionReference)).toEqual([]);
  });

  it("a notification Monnify's transaction status does not confirm credits nothing", async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await monnifyOnramp(balanceOnramp(rate.rate_id));
    const pending = monnify.pay(number, '4000.00');
    // The status (and the search the sweep reads) say otherwise than the notification.
    monnify.disagree(pending.transactionReference, { paymentStatus: 'PENDING' });
    const other = monnify.pay(number, '4000.00');
    monnify.disagree(other.transactionReference, { currency: 'USD' });
    for (const payment of [pending, other]) {
      const answer = await post(payment);
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ received: true, confirmed: false });
    }
    // Nor does the sweep credit them after a few rounds.
    await new Promise((resolve) => setTimeout(resolve, 4_500));
    for (const payment of [pending, other]) {
      expect(await withReference(payment.transactionReference)).toEqual([]);
    }
  });

  it('a signed event of a kind we do not act on answers 200 ignored', async () => {
    const before = await allDeposits(stack.url, key);
    for (const event of [
      { eventType: 'SETTLEMENT', eventData: { settlementReference: 'S1' } },
      { eventType: 'SUCCESSFUL_REFUND', eventData: { refundReference: 'R1' } },
      {
        eventType: 'SUCCESSFUL_TRANSACTION',
        eventData: { product: { type: 'WEB_SDK', reference: 'x' }, paymentStatus: 'PAID' },
      },
    ]) {
      const answer = await post(monnify.sign(event));
      expect({ event: event.eventType, status: answer.status, body: answer.body }).toEqual({
        event: event.eventType,
        status: 200,
        body: { received: true, ignored: true },
      });
    }
    expect(await allDeposits(stack.url, key)).toEqual(before);
  });

  it('the sweep finds a transfer whose notification never came', async () => {
    const rate = await freshRate(stack.url, key);
    const { onramp, number } = await monnifyOnramp(balanceOnramp(rate.rate_id));
    const reference = monnify.recordPayment(number, '6123.45');
    // From the moment Monnify holds it, within a few sweeps (BANK_SWEEP_SECONDS=2).
    const [found] = await eventually(async () => {
      const rows = await withReference(reference);
      return rows.length > 0 ? rows : undefined;
    }, 30_000);
    expect(await depositNow(stack.url, key, found.deposit_id)).toMatchObject({
      onramp_id: onramp.onramp_id,
      amount_ngn: '6123.45',
      bank_reference: reference,
    });
  });

  it("a FLAGGED deposit's return goes out as a Monnify disbursement and completes on its notification", async () => {
    const rate = await freshRate(stack.url, key);
    const { number } = await monnifyOnramp(balanceOnramp(rate.rate_id, 'THROWAWAY'));
    expect((await post(monnify.pay(number, '20000.00'))).status).toBe(200);
    // A second transfer to a THROWAWAY onramp is FLAGGED.
    const payer = { senderAccount: '0123456789', senderBankCode: '058', senderName: 'ADA OBI' };
    const second = await post(monnify.pay(number, '5000.00', payer));
    expect(second.body.status).toBe('FLAGGED');
    const id = second.body.deposit_id as string;

    const returning = await request(stack.url, 'POST', `/v1/deposits/${id}/return`, { key });
    expect(returning.status).toBe(200);
    expect(returning.body).toMatchObject({ deposit_id: id, status: 'RETURNING' });

    // From the merchant's request, the runner pays the payer back from our Monnify wallet.
    const disbursement = await eventually(async () =>
      [...monnify.state.disbursements.values()].find((d) => d.narration.includes(id)),
    );
    const [attempt] = await sql<{ id: string }>(
      databaseUrl,
      'select id from deposit_returns where deposit_id = $1',
      [id],
    );
    expect(disbursement).toMatchObject({
      reference: attempt.id,
      amount: 4900,
      destinationAccountNumber: '0123456789',
      destinationBankCode: '058',
      destinationAccountName: 'ADA OBI',
      status: 'PENDING',
    });
    expect(monnify.count('disburse', attempt.id)).toBe(1);
    expect((await depositNow(stack.url, key, id)).status).toBe('RETURNING');

    // The runner asks Monnify about an accepted return again only 30 s after sending it
    // (src/deposits/return-sender.ts): what completes it here is Monnify's notification.
    const completed = await post(monnify.completeDisbursement(attempt.id, 'SUCCESS'));
    expect(completed.status).toBe(200);
    expect(completed.body).toEqual({ received: true, deposit_id: id, status: 'RETURNED' });
    expect((await depositNow(stack.url, key, id)).status).toBe('RETURNED');
    // Its replay changes nothing.
    const replay = await post(monnify.completeDisbursement(attempt.id, 'SUCCESS'));
    expect(replay.body).toEqual({ received: true, deposit_id: id, status: 'RETURNED' });
    expect(monnify.count('disburse', attempt.id)).toBe(1);
  });
});
