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
  startGateway,
  startRunner,
  type Gateway,
  type RunningProcess,
} from '../support/stack';

// GraphQL answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

const SECRET = `bank_${randomBytes(16).toString('hex')}`;
const PATH = '/v1/bank/notifications';
/** Long enough to see the attempt SENT, and to notify before the sandbox bank does. */
const DELAY_MS = 3000;

/** The documented signature (docs/bank-notifications.md), written independently of src/. */
function signedHeaders(body: string, secret = SECRET, timestamp = Math.floor(Date.now() / 1000)) {
  const hex = createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex');
  return { 'x-bank-timestamp': String(timestamp), 'x-bank-signature': `v1=${hex}` };
}

/**
 * Returns to the payer as with a real bank: the runner's call is only accepted (SENT) and the
 * outcome arrives as a signed notification. The gateway starts first, so the runner's sandbox
 * bank knows its URL (SANDBOX_BANK_GATEWAY_URL) and POSTs its notifications over real HTTP.
 */
describe('return notifications through the processes', () => {
  let gateway: Gateway;
  let runner: RunningProcess;
  let databaseUrl: string;
  let key: string;
  let db: Client;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    const env = baseEnv(databaseUrl, {
      BANK_WEBHOOK_SECRET: SECRET,
      RATE_LIMIT_PER_MINUTE: '100000',
      RETURN_FEE_NGN: '100',
      SANDBOX_BANK_RETURN_DELAY_MS: String(DELAY_MS),
    });
    gateway = await startGateway(gatewayEnvironment(env));
    runner = await startRunner({ ...env, SANDBOX_BANK_GATEWAY_URL: gateway.url });
    key = (await createMerchant(databaseUrl, 'Notified Returns Co')).api_key;
    db = new Client({ connectionString: databaseUrl });
    await db.connect();
  });
  afterAll(async () => {
    await db?.end();
    await Promise.all([gateway?.stop(), runner?.stop()]);
  });

  const statusOf = async (id: string) =>
    (await request(gateway.url, 'GET', `/v1/deposits/${id}`, { key })).body.status as string;
  const attemptOf = async (depositId: string) =>
    (
      await db.query<{ id: string; status: string; failure_reason: string | null }>(
        'select id, status, failure_reason from deposit_returns where deposit_id = $1',
        [depositId],
      )
    ).rows[0];
  const notify = (body: string, headers: Record<string, string> = signedHeaders(body)) =>
    request(gateway.url, 'POST', PATH, { rawBody: body, headers });
  const until = (check: () => Promise<boolean>) =>
    eventually(async () => ((await check()) ? true : undefined), 20_000, 50);

  /** A FLAGGED sandbox deposit (the second transfer to a THROWAWAY onramp), returned. */
  async function returningDeposit(): Promise<string> {
    const rate = await freshRate(gateway.url, key);
    const onramp = await createOnramp(gateway.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(gateway.url, key, account, '20000');
    await until(async () => (await statusOf(first.deposit_id)) === 'SETTLED');
    const second = await sandboxTransfer(gateway.url, key, account, '5000');
    expect(second.status).toBe('FLAGGED');
    const answer = await request(gateway.url, 'POST', `/v1/deposits/${second.deposit_id}/return`, {
      key,
    });
    expect(answer.body).toMatchObject({ status: 'RETURNING' });
    return second.deposit_id;
  }

  it('the bank accepts (SENT), then its signed HTTP notification makes the deposit RETURNED', async () => {
    const depositId = await returningDeposit();
    await until(async () => (await attemptOf(depositId))?.status === 'SENT');
    expect(await statusOf(depositId)).toBe('RETURNING');
    await until(async () => (await statusOf(depositId)) === 'RETURNED');
    expect((await attemptOf(depositId)).status).toBe('COMPLETED');
    const { rows } = await db.query(
      `select kind from ledger_transactions where deposit_id = $1 and kind = 'deposit_returned'`,
      [depositId],
    );
    expect(rows).toHaveLength(1);
  });

  it('returnFailure: the bank accepts, then notifies transfer.return_failed: RETURN_FAILED', async () => {
    const set = await graphql<Loose>(
      gateway.url,
      key,
      'mutation { setSandboxScenario(input: { returnFailure: true }) { returnFailure } }',
    );
    expect(set.body.data.setSandboxScenario.returnFailure).toBe(true);
    try {
      const depositId = await returningDeposit();
      await until(async () => (await attemptOf(depositId))?.status === 'SENT');
      await until(async () => (await statusOf(depositId)) === 'RETURN_FAILED');
      expect(await attemptOf(depositId)).toMatchObject({
        status: 'FAILED',
        failure_reason: 'sandbox scenario: the bank refused the return',
      });
    } finally {
      await graphql<Loose>(
        gateway.url,
        key,
        'mutation { setSandboxScenario(input: { returnFailure: false }) { returnFailure } }',
      );
    }
  });

  it('a signed transfer.return_completed POSTed by hand moves a RETURNING deposit to RETURNED, once', async () => {
    const depositId = await returningDeposit();
    await until(async () => (await attemptOf(depositId))?.status === 'SENT');
    const { id: reference } = await attemptOf(depositId);
    const body = JSON.stringify({
      event: 'transfer.return_completed',
      data: { reference, completed_at: new Date().toISOString() },
    });
    const first = await notify(body);
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ received: true, deposit_id: depositId, status: 'RETURNED' });
    expect(await statusOf(depositId)).toBe('RETURNED');
    // A repeat, and a failure notice after the fact: 200, nothing changes.
    expect((await notify(body)).body).toEqual({
      received: true,
      deposit_id: depositId,
      status: 'RETURNED',
    });
    const late = JSON.stringify({
      event: 'transfer.return_failed',
      data: { reference, reason: 'x' },
    });
    expect((await notify(late)).body).toMatchObject({ status: 'RETURNED' });
    // The sandbox bank's own notification arrives later and changes nothing either.
    await new Promise((resolve) => setTimeout(resolve, DELAY_MS + 500));
    expect(await statusOf(depositId)).toBe('RETURNED');
    const { rows } = await db.query(
      `select kind from ledger_transactions where deposit_id = $1 and kind = 'deposit_returned'`,
      [depositId],
    );
    expect(rows).toHaveLength(1);
  });

  it('an unknown reference: 200 unmatched, nothing else said; a bad signature: 401', async () => {
    const body = JSON.stringify({
      event: 'transfer.return_completed',
      data: { reference: `ret_${randomBytes(8).toString('hex')}` },
    });
    const answer = await notify(body);
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ received: true, unmatched: true });
    const forged = await notify(body, signedHeaders(body, 'not-the-bank-secret-000'));
    expect(forged.status).toBe(401);
    expect(forged.body.error.code).toBe('unauthorized');
  });
});
