import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { WebhookReceiver } from '../support/webhook-receiver';

/**
 * The payer's side through the processes: a merchant sets its payment rules over REST, creates
 * THROWAWAY onramps expecting an amount (and a payer), and sandbox transfers under, over and at
 * the amount follow the rules; the webhook's `data.payer` carries the last four digits only.
 */
describe('payer details and payment rules (e2e)', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // Raised tolerances wait this long (issue 32): one second, then the deposits below see them.
    stack = await startStack(databaseUrl, {
      env: { RATE_LIMIT_PER_MINUTE: '100000', WITHDRAWAL_ADDRESS_DELAY_SECONDS: '1' },
    });
    key = (await createMerchant(databaseUrl, 'Payer Rules Co')).api_key;
    await receiver.start();
    const set = await graphql(
      stack.url,
      key,
      'mutation($u: String!) { setWebhookEndpoint(url: $u) { url enabled } }',
      { u: receiver.url },
    );
    expect(set.body.errors).toBeUndefined();
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  const rest = (method: string, path: string, body?: unknown) =>
    request(stack.url, method, path, { key, body });

  async function expectingOnramp(amountNgn: string, payerName?: string) {
    const rate = await freshRate(stack.url, key);
    return createOnramp(stack.url, key, {
      ...balanceOnramp(rate.rate_id, 'THROWAWAY'),
      amount_ngn: amountNgn,
      ...(payerName ? { payer_name: payerName } : {}),
    });
  }

  async function transfer(accountNumber: string, amountNgn: string, accountName: string) {
    const response = await rest('POST', '/v1/sandbox/deposits', {
      account_number: accountNumber,
      amount_ngn: amountNgn,
      payer: { account_name: accountName, account_number: '2233445566', bank_code: '044' },
    });
    expect(response.status).toBe(201);
    return response.body;
  }

  const statusOf = (depositId: string, status: string) =>
    eventually(async () => {
      const read = await rest('GET', `/v1/deposits/${depositId}`);
      return read.body.status === status ? read.body : undefined;
    }, 30_000);

  it('sets the rules over REST; refuses an unknown action and amount_ngn on PERMANENT', async () => {
    const before = await rest('GET', '/v1/merchant/settings');
    expect(before.body).toMatchObject({
      underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
      overpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
      payer_name_check: { enabled: false, action: 'flag' },
    });
    const patched = await rest('PATCH', '/v1/merchant/settings', {
      underpayment: { tolerance_ngn: '100.00', action: 'flag' },
      overpayment: { tolerance_bps: 100, action: 'flag' },
      payer_name_check: { enabled: true, action: 'flag' },
    });
    expect(patched.status).toBe(200);
    // The stricter actions and the name check apply now; the raised tolerances wait.
    expect(patched.body).toMatchObject({
      underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'flag' },
      overpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'flag' },
      payer_name_check: { enabled: true, action: 'flag' },
    });
    expect(
      patched.body.pending_changes.map((c: { field: string; value: unknown }) => [
        c.field,
        c.value,
      ]),
    ).toEqual([
      ['overpayment.tolerance_bps', 100],
      ['underpayment.tolerance_ngn', '100.00'],
    ]);
    const applied = await eventually(async () => {
      const read = await rest('GET', '/v1/merchant/settings');
      return read.body.pending_changes.length === 0 ? read.body : undefined;
    });
    expect(applied).toMatchObject({
      underpayment: { tolerance_ngn: '100.00', tolerance_bps: 0, action: 'flag' },
      overpayment: { tolerance_ngn: '0.00', tolerance_bps: 100, action: 'flag' },
      payer_name_check: { enabled: true, action: 'flag' },
    });
    const refused = await rest('PATCH', '/v1/merchant/settings', {
      overpayment: { action: 'refund' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_parameter');
    const permanent = await rest('POST', '/v1/onramp', {
      type: 'PERMANENT',
      user: { email: 'ada@example.com' },
      amount_ngn: '5000.00',
      settlement: { mode: 'MERCHANT_BALANCE' },
    });
    expect(permanent.status).toBe(400);
    expect(permanent.body.error.code).toBe('invalid_parameter');
  });

  it('underpaid and overpaid transfers are FLAGGED with their reasons; exact ones settle', async () => {
    const under = await expectingOnramp('10000.00', 'Adaeze Okafor');
    const over = await expectingOnramp('10000.00', 'Adaeze Okafor');
    const exact = await expectingOnramp('10000.00', 'Adaeze Okafor');
    const within = await expectingOnramp('10000.00', 'Adaeze Okafor');
    const read = await rest('GET', `/v1/onramp/${under.onramp_id}`);
    expect(read.body).toMatchObject({ amount_ngn: '10000.00', payer_name: 'Adaeze Okafor' });

    const name = 'OKAFOR ADAEZE CHIOMA';
    const underpaid = await transfer(under.virtual_account.account_number, '9899.99', name);
    expect(underpaid).toMatchObject({ status: 'FLAGGED', flag_reason: 'Underpaid' });
    const overpaid = await transfer(over.virtual_account.account_number, '10100.01', name);
    expect(overpaid).toMatchObject({ status: 'FLAGGED', flag_reason: 'Overpaid' });
    const paid = await transfer(exact.virtual_account.account_number, '10000.00', name);
    const near = await transfer(within.virtual_account.account_number, '9900.00', name);
    for (const d of [paid, near]) {
      const settled = await statusOf(d.deposit_id, 'SETTLED');
      expect(settled.flag_reason).toBeNull();
    }
    expect(paid.payer).toEqual({
      account_name: name,
      account_number_last4: '5566',
      bank_code: '044',
    });
  });

  it('a payer name mismatch is flagged; the webhook data.payer has the last four digits only', async () => {
    const onramp = await expectingOnramp('10000.00', 'Adaeze Okafor');
    const deposit = await transfer(
      onramp.virtual_account.account_number,
      '10000.00',
      'NGOZI BELLO',
    );
    expect(deposit).toMatchObject({ status: 'FLAGGED', flag_reason: 'Payer name mismatch' });
    const hook = await eventually(
      async () =>
        receiver
          .envelopes()
          .find((e) => e.event === 'deposit.flagged' && e.data.deposit_id === deposit.deposit_id),
      30_000,
    );
    expect(hook.data.payer).toEqual({
      account_name: 'NGOZI BELLO',
      account_number_last4: '5566',
      bank_code: '044',
    });
    expect(receiver.received.map((r) => r.body).join('\n')).not.toContain('2233445566');
  });

  it('the sandbox makes up a payer when none is given (GraphQL shows it)', async () => {
    const onramp = await expectingOnramp('10000.00');
    const made = await graphql(
      stack.url,
      key,
      `
        mutation ($a: String!) {
          simulateDeposit(
            input: { accountNumber: $a, amountNgn: "10000.00", bankReference: "PAYER-MADE-UP-1" }
          ) {
            status
            payer {
              accountName
              accountNumberLast4
              bankCode
            }
          }
        }
      `,
      { a: onramp.virtual_account.account_number },
    );
    expect(made.body.errors).toBeUndefined();
    const payer = (made.body.data as { simulateDeposit: { payer: Record<string, string> } })
      .simulateDeposit.payer;
    expect(payer.accountName).toMatch(/^[A-Z]+ [A-Z]+$/);
    expect(payer.accountNumberLast4).toMatch(/^[0-9]{4}$/);
    expect(payer.bankCode).toMatch(/^[0-9]{3}$/);
  });

  it('under action return, an overpaid transfer goes back to the payer: RETURNED, announced', async () => {
    const patched = await rest('PATCH', '/v1/merchant/settings', {
      overpayment: { action: 'return' },
    });
    expect(patched.status).toBe(200);
    const onramp = await expectingOnramp('10000.00');
    const deposit = await transfer(
      onramp.virtual_account.account_number,
      '12000.00',
      'OKAFOR ADAEZE CHIOMA',
    );
    expect(deposit).toMatchObject({ status: 'RETURNING', flag_reason: 'Overpaid' });
    await statusOf(deposit.deposit_id, 'RETURNED');
    const kinds = await eventually(async () => {
      const seen = receiver
        .envelopes()
        .filter((e) => e.data.deposit_id === deposit.deposit_id)
        .map((e) => e.event);
      return seen.includes('deposit.returned') ? seen : undefined;
    }, 30_000);
    expect(kinds).toEqual(['deposit.flagged', 'deposit.returning', 'deposit.returned']);
    await rest('PATCH', '/v1/merchant/settings', { overpayment: { action: 'flag' } });
  });
});
