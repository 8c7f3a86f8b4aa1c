import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, createOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

// GraphQL answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/**
 * Returns to the payer through the processes: a sandbox deposit FLAGGED (a second transfer to
 * a THROWAWAY onramp), returned by the merchant over REST or by the operator's command line;
 * the runner sends it to the sandbox bank and the webhooks say so, signed.
 */
describe('returns to the payer through the processes', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let secret: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: { RATE_LIMIT_PER_MINUTE: '100000', RETURN_FEE_NGN: '100' },
    });
    key = (await createMerchant(databaseUrl, 'Returns Co')).api_key;
    await receiver.start();
    const set = (
      await graphql<Loose>(
        stack.url,
        key,
        'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
        { u: receiver.url },
      )
    ).body;
    secret = set.data.setWebhookEndpoint.secret;
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  /** A FLAGGED sandbox deposit: the second transfer to a THROWAWAY onramp. */
  async function flaggedDeposit(): Promise<{ deposit_id: string; status: string }> {
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(stack.url, key, account, '20000');
    // The first settles to the balance; wait for it, so the balance only moves by the return.
    await eventually(async () =>
      (await statusOf(first.deposit_id)) === 'SETTLED' ? true : undefined,
    );
    const second = await sandboxTransfer(stack.url, key, account, '5000');
    expect(second.status).toBe('FLAGGED');
    return second;
  }
  const statusOf = async (id: string) =>
    (await request(stack.url, 'GET', `/v1/deposits/${id}`, { key })).body.status as string;
  const eventsFor = (id: string) =>
    receiver.received
      .map((raw) => verifyWebhook(secret, raw) as { event: string; data: { deposit_id?: string } })
      .filter((e) => e.data.deposit_id === id)
      .map((e) => e.event);
  const balance = async () =>
    (await request(stack.url, 'GET', '/v1/merchant/balance', { key })).body.balances;

  it('the merchant returns it over REST: deposit.returning then deposit.returned, balance untouched', async () => {
    const deposit = await flaggedDeposit();
    const before = await balance();
    const answer = await request(stack.url, 'POST', `/v1/deposits/${deposit.deposit_id}/return`, {
      key,
    });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ deposit_id: deposit.deposit_id, status: 'RETURNING' });
    await eventually(async () =>
      (await statusOf(deposit.deposit_id)) === 'RETURNED' ? true : undefined,
    );
    await eventually(async () =>
      eventsFor(deposit.deposit_id).includes('deposit.returned') ? true : undefined,
    );
    expect(eventsFor(deposit.deposit_id)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.returned',
    ]);
    expect(await balance()).toEqual(before);

    // Returned already: refused with a clear message.
    const again = await request(stack.url, 'POST', `/v1/deposits/${deposit.deposit_id}/return`, {
      key,
    });
    // invalid_parameter is 400 in the contract (API.md, "Errors").
    expect(again.status).toBe(400);
    expect(again.body.error).toMatchObject({
      code: 'invalid_parameter',
      message: expect.stringMatching(/this one is RETURNED/),
    });
  });

  it('with returnFailure set, the bank refuses: RETURN_FAILED; the operator resolve --return sends it again', async () => {
    const deposit = await flaggedDeposit();
    const set = await graphql<Loose>(
      stack.url,
      key,
      'mutation { setSandboxScenario(input: { returnFailure: true }) { returnFailure } }',
    );
    expect(set.body.data.setSandboxScenario.returnFailure).toBe(true);
    const answer = await graphql<Loose>(
      stack.url,
      key,
      'mutation($id: ID!) { returnDeposit(id: $id) { status } }',
      { id: deposit.deposit_id },
    );
    expect(answer.body.data.returnDeposit.status).toBe('RETURNING');
    await eventually(async () =>
      (await statusOf(deposit.deposit_id)) === 'RETURN_FAILED' ? true : undefined,
    );
    await eventually(async () =>
      eventsFor(deposit.deposit_id).includes('deposit.return_failed') ? true : undefined,
    );

    await graphql<Loose>(
      stack.url,
      key,
      'mutation { setSandboxScenario(input: { returnFailure: false }) { returnFailure } }',
    );
    const resolved = (await onrampCli(databaseUrl, [
      'deposits',
      'resolve',
      deposit.deposit_id,
      '--return',
      '--json',
    ])) as { status: string };
    expect(resolved.status).toBe('RETURNING');
    await eventually(async () =>
      (await statusOf(deposit.deposit_id)) === 'RETURNED' ? true : undefined,
    );
    await eventually(async () =>
      eventsFor(deposit.deposit_id).includes('deposit.returned') ? true : undefined,
    );
    expect(eventsFor(deposit.deposit_id)).toEqual([
      'deposit.flagged',
      'deposit.returning',
      'deposit.return_failed',
      'deposit.returning',
      'deposit.returned',
    ]);
  });
});
