import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { graphql, request } from '../support/http';
import { balanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { eventKinds as kinds, sql } from '../support/sql';

/**
 * Every row of the spec's transition table that needs no chain, through REST and GraphQL
 * only, with the reason text and the event each entry writes.
 */
describe('deposit lifecycle end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { RATE_LIMIT_PER_MINUTE: '100000', JOB_POLL_MS: '1000' },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Lifecycle Co'));
  });
  afterAll(() => stack?.stop());

  async function onramp(type = 'EPHEMERAL', k = key) {
    const rate = await freshRate(stack.url, k);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key: k,
      body: balanceOnramp(rate.rate_id, type),
    });
    expect(created.status).toBe(201);
    return created.body;
  }

  const transfer = (accountNumber: string, amount: string, k = key, reference?: string) =>
    sandboxTransfer(stack.url, k, accountNumber, amount, reference);
  const eventKinds = (depositId: string) => kinds(databaseUrl, depositId);

  const getDeposit = async (id: string, k = key) =>
    (await request(stack.url, 'GET', `/v1/deposits/${id}`, { key: k })).body;

  const settledEventually = (id: string, k = key) =>
    eventually(async () => {
      const d = await getDeposit(id, k);
      return d.status === 'SETTLED' ? d : undefined;
    });

  it('PENDING_FX then SETTLED within 2 s with default settings; the balance is the sum of amount_asset', async () => {
    const { api_key } = await createMerchant(databaseUrl, 'Balance Co');
    const o = await onramp('EPHEMERAL', api_key);
    const amounts = ['15000', '20000.50', '1500'];
    const settled = [];
    for (const amount of amounts) {
      const started = Date.now();
      const d = await transfer(o.virtual_account.account_number, amount, api_key);
      expect(['PENDING_FX', 'SETTLED']).toContain(d.status);
      const done = await settledEventually(d.deposit_id, api_key);
      expect(Date.now() - started).toBeLessThan(2000);
      expect(done.settled_at).not.toBeNull();
      expect(done.amount_asset).toMatch(/^\d+\.\d{6}$/);
      settled.push(done);
      expect(await eventKinds(d.deposit_id)).toEqual(['deposit.created', 'deposit.settled']);
    }
    const balance = await request(stack.url, 'GET', '/v1/merchant/balance', { key: api_key });
    const micro = settled.reduce((acc, d) => acc + BigInt(d.amount_asset.replace('.', '')), 0n);
    const expected = `${micro / 1_000_000n}.${(micro % 1_000_000n).toString().padStart(6, '0')}`;
    expect(balance.body.balances.usd_available).toBe(expected);
    expect(balance.body.balances.usd_pending_withdrawal).toBe('0.000000');
  });

  it('below min_deposit_ngn: FAILED "Below minimum deposit" with deposit.failed', async () => {
    const o = await onramp();
    const d = await transfer(o.virtual_account.account_number, '1499.99');
    expect(d).toMatchObject({
      status: 'FAILED',
      failure_reason: 'Below minimum deposit',
      flag_reason: null,
    });
    expect(await eventKinds(d.deposit_id)).toEqual(['deposit.failed']);
  });

  it('second transfer to a THROWAWAY: FLAGGED with deposit.flagged; the onramp is COMPLETED', async () => {
    const o = await onramp('THROWAWAY');
    const first = await transfer(o.virtual_account.account_number, '15000');
    await settledEventually(first.deposit_id);
    const second = await transfer(o.virtual_account.account_number, '15000');
    expect(second).toMatchObject({
      status: 'FLAGGED',
      flag_reason: 'Second transfer to a throwaway onramp',
    });
    expect(await eventKinds(second.deposit_id)).toEqual(['deposit.flagged']);
    const reread = await request(stack.url, 'GET', `/v1/onramp/${o.onramp_id}`, { key });
    expect(reread.body.status).toBe('COMPLETED');
  });

  it('per-deposit limit: FLAGGED naming the limit', async () => {
    const o = await onramp();
    const d = await transfer(o.virtual_account.account_number, '5000000');
    expect(d).toMatchObject({
      status: 'FLAGGED',
      flag_reason: 'Exceeds the per-deposit limit of 1,000 USD',
    });
  });

  it('FX failures set through setSandboxScenario: temporary FLAGGED, permanent FAILED "FX execution failed"', async () => {
    const { api_key } = await createMerchant(databaseUrl, 'FX Trouble Co');
    const o = await onramp('EPHEMERAL', api_key);
    const set = (fxFailure: string) =>
      graphql(
        stack.url,
        api_key,
        'mutation($i: SandboxScenarioInput!) { setSandboxScenario(input: $i) { fxFailure } }',
        {
          i: { fxFailure },
        },
      );
    expect((await set('TEMPORARY')).body.data.setSandboxScenario.fxFailure).toBe('TEMPORARY');
    const temporary = await transfer(o.virtual_account.account_number, '15000', api_key);
    const flagged = await eventually(async () => {
      const d = await getDeposit(temporary.deposit_id, api_key);
      return d.status === 'FLAGGED' ? d : undefined;
    });
    expect(flagged.flag_reason).toBe('FX execution failed temporarily');
    expect(await eventKinds(temporary.deposit_id)).toEqual(['deposit.created', 'deposit.flagged']);

    await set('PERMANENT');
    const permanent = await transfer(o.virtual_account.account_number, '15000', api_key);
    const failed = await eventually(async () => {
      const d = await getDeposit(permanent.deposit_id, api_key);
      return d.status === 'FAILED' ? d : undefined;
    });
    expect(failed.failure_reason).toBe('FX execution failed');
    expect(await eventKinds(permanent.deposit_id)).toEqual(['deposit.created', 'deposit.failed']);
    await set('NONE');
  });

  it('bank reversal: SETTLED to REVERSED, FLAGGED to FAILED "Bank reversed the transfer"; the balance is kept', async () => {
    const { api_key } = await createMerchant(databaseUrl, 'Reversal Co');
    const o = await onramp('EPHEMERAL', api_key);
    const d = await transfer(
      o.virtual_account.account_number,
      '15000',
      api_key,
      `REV-${Date.now()}`,
    );
    const settled = await settledEventually(d.deposit_id, api_key);
    const reverse = (ref: string) =>
      request(stack.url, 'POST', '/v1/sandbox/reversals', {
        key: api_key,
        body: { bank_reference: ref },
      });
    const reversed = await reverse(settled.bank_reference);
    expect(reversed.status).toBe(201);
    expect(reversed.body.status).toBe('REVERSED');
    expect((await reverse(settled.bank_reference)).status).toBe(200);
    expect(await eventKinds(d.deposit_id)).toEqual([
      'deposit.created',
      'deposit.settled',
      'deposit.reversed',
    ]);
    const balance = await request(stack.url, 'GET', '/v1/merchant/balance', { key: api_key });
    expect(balance.body.balances.usd_available).toBe(settled.amount_asset);

    const flagged = await transfer(
      o.virtual_account.account_number,
      '5000000',
      api_key,
      `REV-F-${Date.now()}`,
    );
    expect(flagged.status).toBe('FLAGGED');
    const failed = await reverse(flagged.bank_reference);
    expect(failed.body).toMatchObject({
      status: 'FAILED',
      failure_reason: 'Bank reversed the transfer',
    });
    expect(await eventKinds(flagged.deposit_id)).toEqual(['deposit.flagged', 'deposit.failed']);
  });

  it('50 concurrent 900-USD deposits with 10,000 USD of daily room: exactly 11 SETTLED and 39 FLAGGED', async () => {
    const { api_key } = await createMerchant(databaseUrl, 'Busy Co');
    const o = await onramp('EPHEMERAL', api_key);
    const rate = await sql<{ inverse_rate: string }>(
      databaseUrl,
      'select inverse_rate::text from rates where id = $1',
      [o.rate_id],
    );
    // The NGN amount worth just over 900 USD at this onramp's locked rate.
    const inverse = Number(rate[0].inverse_rate);
    const ngn = (Math.ceil((900 / inverse) * 100) / 100).toFixed(2);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => transfer(o.virtual_account.account_number, ngn, api_key)),
    );
    const ids = results.map((d) => d.deposit_id);
    const final = await eventually(async () => {
      const list = await request(
        stack.url,
        'GET',
        `/v1/deposits?onramp_id=${o.onramp_id}&per_page=100`,
        { key: api_key },
      );
      const statuses = list.body.deposits.map((d: { status: string }) => d.status);
      return statuses.includes('PENDING_FX') ? undefined : list.body.deposits;
    });
    expect(final).toHaveLength(50);
    expect(final.filter((d: { status: string }) => d.status === 'SETTLED')).toHaveLength(11);
    const flagged = final.filter((d: { status: string }) => d.status === 'FLAGGED');
    expect(flagged).toHaveLength(39);
    for (const d of flagged)
      expect(d.flag_reason).toBe('Exceeds the merchant daily limit of 10,000 USD');
    expect(new Set(ids).size).toBe(50);
  });

  it('sandbox auto-simulation: every new onramp receives the configured transfer after the delay', async () => {
    const { api_key } = await createMerchant(databaseUrl, 'Auto Co');
    const set = await graphql(
      stack.url,
      api_key,
      'mutation { setSandboxScenario(input: {autoDepositNgn: "25000", autoDepositDelaySeconds: 1}) { autoDepositNgn autoDepositDelaySeconds } }',
    );
    expect(set.body.data.setSandboxScenario).toEqual({
      autoDepositNgn: '25000.00',
      autoDepositDelaySeconds: 1,
    });
    const o = await onramp('EPHEMERAL', api_key);
    const deposit = await eventually(async () => {
      const list = await request(stack.url, 'GET', `/v1/deposits?onramp_id=${o.onramp_id}`, {
        key: api_key,
      });
      const d = list.body.deposits[0];
      return d?.status === 'SETTLED' ? d : undefined;
    });
    expect(deposit).toMatchObject({
      amount_ngn: '25000.00',
      bank_reference: `AUTO-${o.onramp_id}`,
    });
  });
});
