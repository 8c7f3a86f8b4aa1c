import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { randomAddress, settledBalanceDeposit } from '../support/onramps';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

/** A reserve day of 2 s: 7 days are 14 s (the processes run on the real clock, shortened). */
const DAY_SECONDS = 2;

// USD amounts compared exactly, in micro-dollars (6 places), never as floats.
const micro = (value: string): bigint => {
  const negative = value.startsWith('-');
  const [whole, fraction = ''] = value.replace('-', '').split('.');
  const m = BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
  return negative ? -m : m;
};
const usd = (m: bigint): string => {
  const sign = m < 0n ? '-' : '';
  const a = m < 0n ? -m : m;
  return `${sign}${a / 1_000_000n}.${(a % 1_000_000n).toString().padStart(6, '0')}`;
};
/** 10 %, rounded down to 6 places. */
const tenPercent = (m: bigint) => (m * 1000n) / 10_000n;

type Loose = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('reserves and reversal liability end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let operatorToken: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        RESERVE_DAY_SECONDS: String(DAY_SECONDS),
        RESERVE_RELEASE_POLL_MS: '1000',
      },
    });
    operatorToken = (
      (await onrampCli(databaseUrl, ['operators', 'issue', '--name', 'ada', '--json'])) as {
        token: string;
      }
    ).token;
    await receiver.start();
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  const admin = (query: string, variables?: Record<string, unknown>) =>
    request<Loose>(stack.internalUrl, 'POST', '/admin/graphql', {
      key: operatorToken,
      body: { query, variables },
    });
  const balance = async (key: string) => {
    const read = await request<Loose>(stack.url, 'GET', '/v1/merchant/balance', { key });
    expect(read.status).toBe(200);
    return read.body.balances as Record<string, string>;
  };
  const gqlBalance = async (key: string) =>
    (
      await graphql<Loose>(
        stack.url,
        key,
        '{ merchant { balance { usdAvailable usdPendingWithdrawal usdReserved } } }',
      )
    ).body.data!.merchant.balance;
  const withdraw = (key: string, amount: string) =>
    request<Loose>(stack.url, 'POST', '/v1/merchant/withdraw', {
      key,
      body: { amount, asset: 'USDC', chain: 'BASE', destination_address: randomAddress() },
    });
  const subscribe = async (key: string): Promise<string> => {
    const created = await request<Loose>(stack.url, 'POST', '/v1/webhook_endpoints', {
      key,
      body: { url: receiver.url, enabled_events: ['*'] },
    });
    expect(created.status).toBe(201);
    return created.body.secret;
  };
  const webhooks = (secret: string, event: string) =>
    receiver.received
      .map((r) => {
        try {
          return verifyWebhook(secret, r) as { event: string; data: Loose };
        } catch {
          return null; // another merchant's endpoint (another secret)
        }
      })
      .filter((e): e is { event: string; data: Loose } => e !== null && e.event === event);

  it('a merchant-liable reversal of a settled deposit leaves the balance negative, refuses withdrawals, and the next settlement repays it', async () => {
    const merchant = await createMerchant(databaseUrl, 'Liable Co');
    const key = merchant.api_key;
    const secret = await subscribe(key);
    // The command line sets the liability.
    expect(
      await onrampCli(databaseUrl, [
        'merchants',
        'liability',
        merchant.merchant_id,
        'merchant',
        '--json',
      ]),
    ).toEqual({
      merchant_id: merchant.merchant_id,
      reversal_liability: 'merchant',
      reversal_liability_override: 'merchant',
      reserve: null,
    });
    const { deposit } = await settledBalanceDeposit(stack.url, key, '30000');
    const credited = (
      await request<Loose>(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key })
    ).body.amount_asset as string;
    // Spend part of it: the reversal then debits more than is available.
    const spent = micro(credited) - 2_000_000n;
    expect((await withdraw(key, usd(spent))).status).toBe(202);

    const reversed = await request<Loose>(stack.url, 'POST', '/v1/sandbox/reversals', {
      key,
      body: { bank_reference: deposit.bank_reference },
    });
    expect(reversed.status).toBe(201);
    expect(reversed.body.status).toBe('REVERSED');
    const owed = micro(credited) - 2_000_000n;
    expect(await balance(key)).toEqual({
      usd_available: usd(-owed),
      usd_pending_withdrawal: usd(spent),
      usd_reserved: '0.000000',
    });
    expect(await gqlBalance(key)).toEqual({
      usdAvailable: usd(-owed),
      usdPendingWithdrawal: usd(spent),
      usdReserved: '0.000000',
    });
    const [event] = await eventually(async () => {
      const found = webhooks(secret, 'deposit.reversed');
      return found.length > 0 ? found : undefined;
    });
    expect(event.data).toMatchObject({
      deposit_id: deposit.deposit_id,
      status: 'REVERSED',
      merchant_debit: credited,
    });

    // While negative, any withdrawal is refused, however small.
    const refused = await withdraw(key, '1');
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('insufficient_balance');
    expect((await balance(key)).usd_available).toBe(usd(-owed));

    // The next settlement repays first.
    const { deposit: next } = await settledBalanceDeposit(stack.url, key, '45000');
    const nextAsset = (
      await request<Loose>(stack.url, 'GET', `/v1/deposits/${next.deposit_id}`, { key })
    ).body.amount_asset as string;
    expect((await balance(key)).usd_available).toBe(usd(micro(nextAsset) - owed));
    expect((await withdraw(key, '1')).status).toBe(202);
  });

  it('an operator-liable reversal (the default) debits nothing and carries no merchant_debit', async () => {
    const merchant = await createMerchant(databaseUrl, 'Default Co');
    const key = merchant.api_key;
    const secret = await subscribe(key);
    const { deposit } = await settledBalanceDeposit(stack.url, key, '15000');
    const before = await balance(key);
    await request(stack.url, 'POST', '/v1/sandbox/reversals', {
      key,
      body: { bank_reference: deposit.bank_reference },
    });
    const [event] = await eventually(async () => {
      const found = webhooks(secret, 'deposit.reversed');
      return found.length > 0 ? found : undefined;
    });
    expect(event.data.status).toBe('REVERSED');
    expect(event.data).not.toHaveProperty('merchant_debit');
    expect(await balance(key)).toEqual(before);
  });

  it('holds 10 % of each settlement for 7 days and releases exactly the held amounts, with balance.reserve_released', async () => {
    const merchant = await createMerchant(databaseUrl, 'Reserved Co');
    const key = merchant.api_key;
    const secret = await subscribe(key);
    const set = await admin(
      `mutation($m: ID!) { setMerchantReserve(merchantId: $m, percentBps: 1000, holdDays: 7) {
         merchantId reversalLiability reserve { percentBps holdDays } } }`,
      { m: merchant.merchant_id },
    );
    expect(set.body.data.setMerchantReserve).toEqual({
      merchantId: merchant.merchant_id,
      reversalLiability: 'operator',
      reserve: { percentBps: 1000, holdDays: 7 },
    });
    const first = await settledBalanceDeposit(stack.url, key, '15000');
    // The second hold cannot be due before 7 reserve days from here (it settles after this).
    const beforeSecond = Date.now();
    const second = await settledBalanceDeposit(stack.url, key, '30001.55');
    const assets = await Promise.all(
      [first, second].map(async ({ deposit }) =>
        micro(
          (await request<Loose>(stack.url, 'GET', `/v1/deposits/${deposit.deposit_id}`, { key }))
            .body.amount_asset,
        ),
      ),
    );
    const holds = assets.map(tenPercent);
    const total = assets[0] + assets[1];
    const held = holds[0] + holds[1];
    expect(await balance(key)).toEqual({
      usd_available: usd(total - held),
      usd_pending_withdrawal: '0.000000',
      usd_reserved: usd(held),
    });

    // 7 reserve days (14 s) after each settlement, plus the job's poll: all of it is back.
    const released = await eventually(
      async () => {
        const found = webhooks(secret, 'balance.reserve_released');
        const sum = found.reduce((s, e) => s + micro(e.data.amount), 0n);
        return sum === held ? found : undefined;
      },
      60_000,
      250,
    );
    // Not before they were due.
    expect(Date.now() - beforeSecond).toBeGreaterThanOrEqual(7 * DAY_SECONDS * 1000);
    expect(released.flatMap((e) => e.data.deposit_ids).sort()).toEqual(
      [first.deposit.deposit_id, second.deposit.deposit_id].sort(),
    );
    for (const e of released) expect(e.data.merchant_id).toBe(merchant.merchant_id);
    expect(await balance(key)).toEqual({
      usd_available: usd(total),
      usd_pending_withdrawal: '0.000000',
      usd_reserved: '0.000000',
    });
    expect((await gqlBalance(key)).usdReserved).toBe('0.000000');

    // Cleared: later settlements hold nothing.
    const cleared = await onrampCli(databaseUrl, [
      'merchants',
      'reserve',
      merchant.merchant_id,
      '--clear',
      '--json',
    ]);
    expect(cleared).toMatchObject({ reserve: null });
    await settledBalanceDeposit(stack.url, key, '15000');
    expect((await balance(key)).usd_reserved).toBe('0.000000');
  });

  it('refuses bad reserves (negative, over 100 %, 366 days, non-numeric) in the error shape and changes nothing', async () => {
    const merchant = await createMerchant(databaseUrl, 'Bad Input Co');
    const id = merchant.merchant_id;
    await onrampCli(databaseUrl, [
      'merchants',
      'reserve',
      id,
      '--percent-bps',
      '250',
      '--hold-days',
      '3',
      '--json',
    ]);
    const terms = async () =>
      (
        await admin(
          `query($m: ID!) { merchantLedgerTerms(merchantId: $m) { reserve { percentBps holdDays } } }`,
          { m: id },
        )
      ).body.data.merchantLedgerTerms;
    expect(await terms()).toEqual({ reserve: { percentBps: 250, holdDays: 3 } });

    for (const [bps, days] of [
      [-1, 7],
      [10_001, 7],
      [1000, 366],
    ]) {
      const refused = await admin(
        `mutation($m: ID!, $b: Int!, $d: Int!) { setMerchantReserve(merchantId: $m, percentBps: $b, holdDays: $d) { merchantId } }`,
        { m: id, b: bps, d: days },
      );
      expect(refused.body.data).toBeNull();
      expect(refused.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    }
    const nonNumeric = await admin(
      `mutation($m: ID!) { setMerchantReserve(merchantId: $m, percentBps: "ten", holdDays: 7) { merchantId } }`,
      { m: id },
    );
    expect(nonNumeric.body.errors.length).toBeGreaterThan(0);

    for (const args of [
      ['--percent-bps=-1', '--hold-days', '7'],
      ['--percent-bps', '10001', '--hold-days', '7'],
      ['--percent-bps', '1000', '--hold-days', '366'],
      ['--percent-bps', 'ten', '--hold-days', '7'],
    ]) {
      const failed = await onrampCli(databaseUrl, ['merchants', 'reserve', id, ...args, '--json'])
        .then(() => null)
        .catch((error: { code: number; stderr: string }) => error);
      expect(failed).not.toBeNull();
      expect(failed!.code).toBe(1);
      expect(JSON.parse(failed!.stderr).error.code).toBe('invalid_parameter');
    }
    const liability = await onrampCli(databaseUrl, ['merchants', 'liability', id, 'both', '--json'])
      .then(() => null)
      .catch((error: { code: number; stderr: string }) => error);
    expect(liability!.code).toBe(1);
    expect(await terms()).toEqual({ reserve: { percentBps: 250, holdDays: 3 } });
  });
});
