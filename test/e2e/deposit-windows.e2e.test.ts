import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request } from '../support/http';
import { balanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { eventKinds as kinds } from '../support/sql';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Transitions that depend on time, freezes and the system-wide limit, on a stack with short
 * TTLs and a small system limit (set through configuration, as production would be).
 */
describe('deposit windows, freezes and system limit end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        ONRAMP_TTL_SECONDS: '3',
        RATE_INTERVAL_SECONDS: '4',
        RATE_TTL_SECONDS: '8',
        SYSTEM_DAILY_LIMIT_USD: '30',
        ONRAMP_DAILY_LIMIT: '3',
      },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Windows Co'));
  });
  afterAll(() => stack?.stop());

  async function onramp(k = key, type = 'EPHEMERAL', rateId?: string) {
    const id = rateId ?? (await freshRate(stack.url, k)).rate_id;
    const body: Record<string, unknown> = balanceOnramp(id, type);
    if (type === 'PERMANENT') delete body.rate_id;
    return request(stack.url, 'POST', '/v1/onramp', { key: k, body });
  }

  const transfer = (accountNumber: string, amount: string, k = key) =>
    sandboxTransfer(stack.url, k, accountNumber, amount);
  const eventKinds = (depositId: string) => kinds(databaseUrl, depositId);

  it('after onramp expiry: FLAGGED "Deposit received after onramp expiry" with deposit.flagged', async () => {
    const created = await onramp();
    expect(created.status).toBe(201);
    await sleep(3200);
    const d = await transfer(created.body.virtual_account.account_number, '15000');
    expect(d).toMatchObject({
      status: 'FLAGGED',
      flag_reason: 'Deposit received after onramp expiry',
    });
    expect(await eventKinds(d.deposit_id)).toEqual(['deposit.flagged']);
  });

  it('after rate expiry: FLAGGED "Deposit received after rate expiry"', async () => {
    const { api_key } = await createMerchant(databaseUrl, 'Late Rate Co');
    // Bind an onramp (TTL 3 s) to a rate with 2 s left: the rate ends inside the onramp's TTL.
    const rate = await freshRate(stack.url, api_key);
    await sleep(Date.parse(rate.expires_at) - Date.now() - 2000);
    const created = await onramp(api_key, 'EPHEMERAL', rate.rate_id);
    expect(created.status).toBe(201);
    await sleep(Math.max(0, Date.parse(rate.expires_at) - Date.now()) + 100);
    const d = await transfer(created.body.virtual_account.account_number, '15000', api_key);
    expect(d).toMatchObject({
      status: 'FLAGGED',
      flag_reason: 'Deposit received after rate expiry',
    });
  });

  it("frozen merchant: transfers to its onramps are FLAGGED 'Merchant account frozen'", async () => {
    const { api_key } = await createMerchant(databaseUrl, 'Freezer Co');
    const first = await onramp(api_key, 'PERMANENT');
    expect(first.status).toBe(201);
    for (let i = 0; i < 2; i += 1) expect((await onramp(api_key, 'PERMANENT')).status).toBe(201);
    const refused = await onramp(api_key, 'PERMANENT');
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('merchant_frozen');
    const d = await transfer(first.body.virtual_account.account_number, '15000', api_key);
    expect(d).toMatchObject({ status: 'FLAGGED', flag_reason: 'Merchant account frozen' });
    expect(await eventKinds(d.deposit_id)).toEqual(['deposit.flagged']);
  });

  it('system daily limit across merchants: FLAGGED naming it once the day total would pass it', async () => {
    const a = await createMerchant(databaseUrl, 'System A');
    const b = await createMerchant(databaseUrl, 'System B');
    const oa = await onramp(a.api_key, 'PERMANENT');
    const ob = await onramp(b.api_key, 'PERMANENT');
    // About 19.9 USD each: the first fits in 30 USD, the second (other merchant) does not.
    const first = await transfer(oa.body.virtual_account.account_number, '30000', a.api_key);
    expect(['PENDING_FX', 'SETTLED']).toContain(first.status);
    const second = await transfer(ob.body.virtual_account.account_number, '30000', b.api_key);
    expect(second).toMatchObject({
      status: 'FLAGGED',
      flag_reason: 'Exceeds the system daily limit of 30 USD',
    });
    await eventually(async () => {
      const d = await request(stack.url, 'GET', `/v1/deposits/${first.deposit_id}`, {
        key: a.api_key,
      });
      return d.body.status === 'SETTLED' ? d : undefined;
    });
  });
});
