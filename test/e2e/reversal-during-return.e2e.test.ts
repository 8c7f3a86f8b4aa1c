import { createHmac, randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import {
  baseEnv,
  createMerchant,
  eventually,
  onrampCli,
  startGateway,
  startRunner,
  type Gateway,
  type RunningProcess,
} from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

// GraphQL answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const SECRET = `bank_${randomBytes(16).toString('hex')}`;
/** Long enough to see the attempt SENT and reverse the transfer before the bank's outcome. */
const DELAY_MS = 3000;
const AMOUNT = '5000.00';
const FEE = '100';
const PAID_OUT = '4900.00';
const FLAGGED_BY_REVERSAL = { status: 'FLAGGED', flag_reason: 'Reversal during return' };
/** A deposit whose NGN came in once and went back once, by the bank's reversal. */
const NOTHING_LEFT = {
  'operator:ngn_bank': '0.00',
  'operator:ngn_suspense': '0.00',
  'operator:ngn_returns': '0.00',
};

/**
 * API.md "Money leaves only where it should": NGN goes back to a payer at most once. A payer
 * who asks for a return and recalls the transfer at the bank: the bank's reversal notification
 * arrives over signed HTTP while the deposit is RETURNING, before the runner sent the return
 * (it is cancelled: REVERSED) or after (FLAGGED 'Reversal during return', and the return's
 * outcome, arriving later, never makes it RETURNED nor debits ngn_returns again).
 */
describe('a bank reversal during a return, through both processes', () => {
  let gateway: Gateway;
  let runner: RunningProcess;
  let env: NodeJS.ProcessEnv;
  let databaseUrl: string;
  let key: string;
  let webhookSecret: string;
  let db: Client;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    env = baseEnv(databaseUrl, {
      BANK_WEBHOOK_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '100000',
      RETURN_FEE_NGN: FEE,
      RETURN_SWEEP_SECONDS: '1',
      SANDBOX_BANK_RETURN_DELAY_MS: String(DELAY_MS),
    });
    gateway = await startGateway(gatewayEnvironment(env));
    runner = await startRunner({ ...env, SANDBOX_BANK_GATEWAY_URL: gateway.url });
    key = (await createMerchant(databaseUrl, 'Recalled Returns Co')).api_key;
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
    await receiver.start();
    const set = await graphql<Loose>(
      gateway.url,
      key,
      'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
      { u: receiver.url },
    );
    webhookSecret = set.body.data.setWebhookEndpoint.secret;
  });
  afterAll(async () => {
    await db?.end();
    await Promise.all([gateway?.stop(), runner?.stop()]);
    await receiver.stop();
  });

  const rows = async (text: string, params: unknown[]): Promise<Loose[]> =>
    (await db.query(text, params)).rows;
  const depositOf = async (id: string): Promise<Loose> =>
    (await request(gateway.url, 'GET', `/v1/deposits/${id}`, { key })).body;
  const attemptOf = async (depositId: string): Promise<Loose> =>
    (
      await rows('select id, status, attempts from deposit_returns where deposit_id = $1', [
        depositId,
      ])
    )[0];
  const until = (check: () => Promise<boolean>) =>
    eventually(async () => ((await check()) ? true : undefined), 30_000, 50);
  const notify = (event: string, data: Record<string, string>) => {
    // The documented signature (docs/bank-notifications.md), written independently of src/.
    const body = JSON.stringify({ event, data });
    const timestamp = Math.floor(Date.now() / 1000);
    const hex = createHmac('sha256', SECRET).update(`${timestamp}.${body}`).digest('hex');
    const headers = { 'x-bank-timestamp': String(timestamp), 'x-bank-signature': `v1=${hex}` };
    return request(gateway.url, 'POST', '/v1/bank/notifications', { rawBody: body, headers });
  };
  const reverse = async (depositId: string) => {
    const [deposit] = await rows('select bank_reference from deposits where id = $1', [depositId]);
    const reversedAt = new Date().toISOString();
    return notify('transfer.reversed', {
      reference: deposit.bank_reference,
      reversed_at: reversedAt,
    });
  };
  /** What the deposit's own ledger transactions left in each account (normal direction). */
  const ledgerOf = async (depositId: string) => {
    const net = await rows(
      `select p.account_id,
              sum(case when p.direction = a.normal_side then p.amount else -p.amount end) as net
         from ledger_postings p
         join ledger_transactions t on t.id = p.transaction_id
         join ledger_accounts a on a.id = p.account_id
        where t.deposit_id = $1
        group by p.account_id`,
      [depositId],
    );
    return Object.fromEntries(net.map((r) => [r.account_id, Number(r.net).toFixed(2)]));
  };
  const kindsOf = async (depositId: string) =>
    (
      await rows(
        'select kind from ledger_transactions where deposit_id = $1 order by created_at, id',
        [depositId],
      )
    ).map((r) => r.kind);
  const webhooksFor = (id: string): Loose[] =>
    receiver.received
      .map((raw) => verifyWebhook(webhookSecret, raw) as Loose)
      .filter((e) => e.data.deposit_id === id);
  const ledgerCheck = () => onrampCli(databaseUrl, ['ledger', 'check', '--json']);

  /** A FLAGGED sandbox deposit (the second transfer to a THROWAWAY onramp). */
  async function flaggedDeposit(): Promise<string> {
    const rate = await freshRate(gateway.url, key);
    const onramp = await createOnramp(gateway.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(gateway.url, key, account, '20000');
    await until(async () => (await depositOf(first.deposit_id)).status === 'SETTLED');
    const second = await sandboxTransfer(gateway.url, key, account, AMOUNT);
    expect(second.status).toBe('FLAGGED');
    return second.deposit_id;
  }
  const returnOverRest = async (depositId: string) =>
    expect(
      (await request(gateway.url, 'POST', `/v1/deposits/${depositId}/return`, { key })).body,
    ).toMatchObject({ status: 'RETURNING' });

  it('before the return is sent: the return is cancelled, the deposit ends REVERSED, nothing is paid', async () => {
    const depositId = await flaggedDeposit();
    // The runner is down: the attempt waits, unsent, as it would between two sweeps.
    await runner.stop();
    try {
      await returnOverRest(depositId);
      const reversal = await reverse(depositId);
      expect(reversal.status).toBe(200);
      expect(reversal.body).toEqual({ received: true, deposit_id: depositId, status: 'REVERSED' });
      expect(await attemptOf(depositId)).toMatchObject({ status: 'CANCELLED', attempts: 0 });
    } finally {
      runner = await startRunner({ ...env, SANDBOX_BANK_GATEWAY_URL: gateway.url });
    }
    // The runner's sweeps (every second) and the bank's delay pass: nothing is ever sent.
    await until(async () => webhooksFor(depositId).length === 3);
    await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 2000));
    expect(await attemptOf(depositId)).toMatchObject({ status: 'CANCELLED', attempts: 0 });
    expect(await depositOf(depositId)).toMatchObject({ status: 'REVERSED', flag_reason: null });
    expect(webhooksFor(depositId).map((e) => e.event)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.reversed',
    ]);
    expect(await kindsOf(depositId)).toEqual([
      'deposit_received',
      'deposit_hold',
      'deposit_reversal',
    ]);
    expect(await ledgerOf(depositId)).toEqual(NOTHING_LEFT);
    expect(await ledgerCheck()).toMatchObject({ ok: true, violations: [] });
  });

  it('after it was sent: FLAGGED "Reversal during return"; the completion that follows pays no second debit of ngn_returns', async () => {
    const depositId = await flaggedDeposit();
    await returnOverRest(depositId);
    await until(async () => (await attemptOf(depositId))?.status === 'SENT');
    const reversal = await reverse(depositId);
    expect(reversal.status).toBe(200);
    expect(reversal.body).toEqual({ received: true, deposit_id: depositId, status: 'FLAGGED' });
    expect(await depositOf(depositId)).toMatchObject(FLAGGED_BY_REVERSAL);
    // The sandbox bank pays the return it accepted and notifies it, signed, after the reversal.
    await until(async () => (await attemptOf(depositId)).status === 'COMPLETED');
    expect(await depositOf(depositId)).toMatchObject(FLAGGED_BY_REVERSAL);
    // A repeated reversal and a repeated completion change nothing.
    expect((await reverse(depositId)).body).toMatchObject({ status: 'FLAGGED' });
    const { id: reference } = await attemptOf(depositId);
    expect((await notify('transfer.return_completed', { reference })).body).toEqual({
      received: true,
      deposit_id: depositId,
      status: 'FLAGGED',
    });

    await until(async () => webhooksFor(depositId).length === 3);
    const events = webhooksFor(depositId);
    expect(events.map((e) => e.event)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.flagged',
    ]);
    expect(events[2].data.flag_reason).toBe('Reversal during return');
    // Nobody can send it back again, nor convert NGN the bank took back.
    const again = await request(gateway.url, 'POST', `/v1/deposits/${depositId}/return`, { key });
    expect(again.status).toBe(400);
    expect(again.body.error.code).toBe('invalid_parameter');
    await expect(
      onrampCli(databaseUrl, ['deposits', 'resolve', depositId, '--settle', '--json']),
    ).rejects.toThrow(/bank reversed this transfer/);
    expect(await kindsOf(depositId)).toEqual([
      'deposit_received',
      'deposit_hold',
      'deposit_reversal',
      'deposit_paid_twice',
    ]);
    // The bank took the NGN back and also paid the return: the second payment is owed by the
    // payer (ngn_paid_twice), ngn_returns was emptied once, and no fee was earned.
    expect(await ledgerOf(depositId)).toEqual({
      'operator:ngn_bank': `-${PAID_OUT}`,
      'operator:ngn_suspense': '0.00',
      'operator:ngn_returns': '0.00',
      'operator:ngn_paid_twice': PAID_OUT,
    });
    expect(await ledgerCheck()).toMatchObject({ ok: true, violations: [] });
  });

  it('after it was sent, and the bank then refuses the return: FLAGGED, nothing paid twice', async () => {
    const scenario = (on: boolean) =>
      graphql<Loose>(
        gateway.url,
        key,
        `mutation { setSandboxScenario(input: { returnFailure: ${on} }) { returnFailure } }`,
      );
    const depositId = await flaggedDeposit();
    await scenario(true);
    try {
      await returnOverRest(depositId);
      await until(async () => (await attemptOf(depositId))?.status === 'SENT');
      expect((await reverse(depositId)).body).toMatchObject({ status: 'FLAGGED' });
      await until(async () => (await attemptOf(depositId)).status === 'FAILED');
    } finally {
      await scenario(false);
    }
    expect(await depositOf(depositId)).toMatchObject(FLAGGED_BY_REVERSAL);
    await until(async () => webhooksFor(depositId).length === 3);
    expect(webhooksFor(depositId).map((e) => e.event)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.flagged',
    ]);
    // The operator closes it: FAILED, no NGN moves (it left with the reversal).
    await onrampCli(databaseUrl, ['deposits', 'resolve', depositId, '--return', '--json']);
    expect(await depositOf(depositId)).toMatchObject({
      status: 'FAILED',
      failure_reason: 'Returned to sender after review',
    });
    expect(await ledgerOf(depositId)).toEqual(NOTHING_LEFT);
    expect(await ledgerCheck()).toMatchObject({ ok: true, violations: [] });
  });

  it('after the return completed: never RETURNED with a reversal recorded; FLAGGED for the operator', async () => {
    const depositId = await flaggedDeposit();
    await returnOverRest(depositId);
    await until(async () => (await depositOf(depositId)).status === 'RETURNED');
    const reversal = await reverse(depositId);
    expect(reversal.body).toEqual({ received: true, deposit_id: depositId, status: 'FLAGGED' });
    expect(await depositOf(depositId)).toMatchObject(FLAGGED_BY_REVERSAL);
    await until(async () => webhooksFor(depositId).length === 4);
    expect(webhooksFor(depositId).map((e) => e.event)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.returned',
      'deposit.flagged',
    ]);
    // The fee the return kept is given back with the loss: the payer owes what was paid twice.
    expect(await ledgerOf(depositId)).toEqual({
      'operator:ngn_bank': `-${PAID_OUT}`,
      'operator:ngn_suspense': '0.00',
      'operator:ngn_returns': '0.00',
      'operator:ngn_return_fees': '0.00',
      'operator:ngn_paid_twice': PAID_OUT,
    });
    expect(await ledgerCheck()).toMatchObject({ ok: true, violations: [] });
  });
});
