import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { request, type HttpResponse } from '../support/http';
import {
  balanceOnramp,
  createOnramp,
  freshRate,
  randomAddress,
  sandboxTransfer,
  settledBalanceDeposit,
} from '../support/onramps';
import { sql } from '../support/sql';

/**
 * Every effectful POST with an `Idempotency-Key` runs in one transaction with its stored
 * answer (issue 32, finding 4): each route still answers as it did (it reads its own
 * uncommitted writes), the answer is stored, and a repeat replays it without running again.
 */
describe('Idempotency-Key on every effectful POST', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Every Route Co'));
    await settledBalanceDeposit(stack.url, key, '200000');
  });
  afterAll(() => stack?.stop());

  const post = (path: string, body: unknown, idempotencyKey: string) =>
    request(stack.url, 'POST', path, {
      key,
      body,
      headers: { 'Idempotency-Key': idempotencyKey },
    });

  /** Sends once and again with one key: the first answer as expected, then replayed. */
  async function once(path: string, body: unknown, status: number): Promise<HttpResponse> {
    const idempotencyKey = `routes-${randomBytes(8).toString('hex')}`;
    const first = await post(path, body, idempotencyKey);
    if (first.status !== status) throw new Error(`${path}: ${first.status} ${first.text}`);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    const [row] = await sql<{ state: string; response_status: number }>(
      databaseUrl,
      'select state, response_status from idempotency_keys where key = $1',
      [idempotencyKey],
    );
    expect(row).toEqual({ state: 'COMPLETED', response_status: status });
    const replay = await post(path, body, idempotencyKey);
    expect(replay.status).toBe(status);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.text).toBe(first.text);
    return first;
  }

  /** A FLAGGED sandbox deposit: the second transfer to a THROWAWAY onramp. */
  async function flaggedDeposit(): Promise<string> {
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(stack.url, key, account, '20000');
    await eventually(async () => {
      const read = await request(stack.url, 'GET', `/v1/deposits/${first.deposit_id}`, { key });
      return read.body.status === 'SETTLED' ? true : undefined;
    });
    const second = await sandboxTransfer(stack.url, key, account, '5000');
    expect(second.status).toBe('FLAGGED');
    return second.deposit_id;
  }

  it('onramps: create, revoke the client secret, deactivate', async () => {
    // PERMANENT: it can be deactivated (it takes the rate current at settlement).
    const permanent = {
      type: 'PERMANENT',
      user: { email: 'ada@example.com' },
      settlement: { mode: 'MERCHANT_BALANCE' },
    };
    const created = await once('/v1/onramp', permanent, 201);
    const id = created.body.onramp_id;
    await once(`/v1/onramp/${id}/revoke_client_secret`, undefined, 200);
    await once(`/v1/onramp/${id}/deactivate`, undefined, 200);
  });

  it('sandbox: a transfer, and its reversal', async () => {
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id));
    const bankReference = `ROUTES-${randomBytes(4).toString('hex')}`;
    const deposit = await once(
      '/v1/sandbox/deposits',
      {
        account_number: onramp.virtual_account.account_number,
        amount_ngn: '15000',
        bank_reference: bankReference,
      },
      201,
    );
    const reversed = await once('/v1/sandbox/reversals', { bank_reference: bankReference }, 201);
    expect(reversed.body.deposit_id).toBe(deposit.body.deposit_id);
  });

  it('withdrawals and the withdrawal address book', async () => {
    await once(
      '/v1/merchant/withdrawal_addresses',
      { chain: 'BASE', address: randomAddress(), label: 'cold' },
      201,
    );
    await once(
      '/v1/merchant/withdraw',
      { amount: '10', asset: 'USDC', chain: 'BASE', destination_address: randomAddress() },
      202,
    );
  });

  it('API keys and webhook endpoints (create, rotate, test)', async () => {
    const created = await once('/v1/api_keys', { name: 'ops', scopes: ['deposits:read'] }, 201);
    // The stored answer holds the new key's secret, and the key works.
    const read = await request(stack.url, 'GET', '/v1/onramps', { key: created.body.secret });
    expect(read.status).toBe(403);
    const endpoint = await once(
      '/v1/webhook_endpoints',
      { url: 'https://hooks.example.com/onramp', enabled_events: ['*'] },
      201,
    );
    expect(endpoint.body.secret).toMatch(/^whsec_/);
    const id = endpoint.body.id;
    const rotated = await once(`/v1/webhook_endpoints/${id}/rotate_secret`, undefined, 200);
    expect(rotated.body.secret).not.toBe(endpoint.body.secret);
    await once(`/v1/webhook_endpoints/${id}/test`, undefined, 200);
  });

  it("a FLAGGED deposit's resolution link, then its return", async () => {
    const depositId = await flaggedDeposit();
    await once(`/v1/deposits/${depositId}/resolution_link`, {}, 201);
    const returned = await once(`/v1/deposits/${depositId}/return`, undefined, 200);
    expect(returned.body.status).toBe('RETURNING');
  });

  it('a GraphQL mutation over POST /graphql', async () => {
    const added = await once(
      '/graphql',
      {
        query:
          'mutation ($input: AddWithdrawalAddressInput!) { addWithdrawalAddress(input: $input) { id address } }',
        variables: { input: { chain: 'POLYGON', address: randomAddress() } },
      },
      200,
    );
    expect(added.body.data.addWithdrawalAddress.id).toEqual(expect.any(String));
  });
});
