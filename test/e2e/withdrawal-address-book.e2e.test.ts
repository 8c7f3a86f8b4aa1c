import { startTestChains, type TestChains } from '../support/chains';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, freshRate, randomAddress, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

/** The payment rules a merchant that never set them has (issue 22): accept, no name check. */
const DEFAULT_RULES = {
  underpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
  overpayment: { tolerance_ngn: '0.00', tolerance_bps: 0, action: 'accept' },
  payer_name_check: { enabled: false, action: 'flag' },
  allowed_origins: [],
  payer_resolution: { allow_settle: false },
  pending_changes: [],
};

/** Short enough to wait for; the processes run on the real clock (they cannot share a ManualClock). */
const DELAY_SECONDS = 3;

type Entry = Record<string, string | null>;

/**
 * The address book end to end: a gateway and a job runner on real anvil chains. With the
 * setting on, a new address refuses withdrawals until its delay passes, then a withdrawal to it
 * completes on chain; removed, it refuses again; every change arrives as a signed webhook.
 */
describe('withdrawal address book through the processes', () => {
  let chains: TestChains;
  let stack: Stack;
  let key: string;
  let secret: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    chains = await startTestChains();
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        ...chains.env,
        RATE_LIMIT_PER_MINUTE: '100000',
        PAYOUT_POLL_MS: '300',
        WITHDRAWAL_ADDRESS_DELAY_SECONDS: String(DELAY_SECONDS),
      },
    });
    key = (await createMerchant(databaseUrl, 'Careful Co')).api_key;
    await receiver.start();
    const set = await graphql<{ setWebhookEndpoint: { secret: string } }>(
      stack.url,
      key,
      'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
      { u: receiver.url },
    );
    secret = set.body.data!.setWebhookEndpoint.secret;
  });
  afterAll(async () => {
    await stack?.stop();
    await chains?.stop();
    await receiver.stop();
  });

  const call = (method: string, path: string, body?: unknown) =>
    request(stack.url, method, path, { key, body });
  const withdraw = (to: string) =>
    call('POST', '/v1/merchant/withdraw', {
      amount: '2',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: to,
    });
  /** The verified webhooks of these kinds, in arrival order. */
  const webhooks = (...kinds: string[]) =>
    receiver.received
      .map((raw) => verifyWebhook(secret, raw) as { event: string; data: Entry })
      .filter((envelope) => kinds.includes(envelope.event));

  async function fund(amountNgn: string): Promise<void> {
    const rate = await freshRate(stack.url, key);
    const created = await call('POST', '/v1/onramp', balanceOnramp(rate.rate_id));
    expect(created.status).toBe(201);
    const deposit = await sandboxTransfer(
      stack.url,
      key,
      created.body.virtual_account.account_number,
      amountNgn,
    );
    await eventually(async () => {
      const read = await call('GET', `/v1/deposits/${deposit.deposit_id}`);
      return read.body.status === 'SETTLED' ? true : undefined;
    });
  }

  it('turns the rule on, refuses until the delay passes, completes on chain, refuses once removed', async () => {
    // The sandbox's default is off; the answer shows the value that applies.
    expect((await call('GET', '/v1/merchant/settings')).body).toEqual({
      require_address_book: false,
      ...DEFAULT_RULES,
    });
    const turnedOn = await call('PATCH', '/v1/merchant/settings', { require_address_book: true });
    expect({ status: turnedOn.status, body: turnedOn.body }).toEqual({
      status: 200,
      body: { require_address_book: true, ...DEFAULT_RULES },
    });
    const gqlSettings = await graphql(
      stack.url,
      key,
      '{ merchantSettings { requireAddressBook } }',
    );
    expect(gqlSettings.body.data).toEqual({ merchantSettings: { requireAddressBook: true } });
    await fund('30000');

    const destination = randomAddress();
    const refusedBefore = await withdraw(destination);
    expect({ status: refusedBefore.status, code: refusedBefore.body.error?.code }).toEqual({
      status: 422,
      code: 'address_not_allowed',
    });

    const added = await call('POST', '/v1/merchant/withdrawal_addresses', {
      chain: 'BASE',
      address: destination.toLowerCase(),
      label: 'treasury',
    });
    expect(added.status).toBe(201);
    const entry = added.body as Entry;
    expect(entry).toEqual({
      id: expect.stringMatching(/^wa_[0-9A-Z]{26}$/),
      chain: 'BASE',
      address: destination,
      label: 'treasury',
      status: 'PENDING',
      active_at: expect.any(String),
      created_at: expect.any(String),
    });
    expect(Date.parse(entry.active_at!) - Date.parse(entry.created_at!)).toBe(DELAY_SECONDS * 1000);
    // The same address again: the same entry, its delay not restarted.
    const again = await call('POST', '/v1/merchant/withdrawal_addresses', {
      chain: 'BASE',
      address: destination,
    });
    expect({ status: again.status, id: again.body.id, active_at: again.body.active_at }).toEqual({
      status: 200,
      id: entry.id,
      active_at: entry.active_at,
    });

    const refusedPending = await withdraw(destination);
    expect(refusedPending.body.error?.code).toBe('address_not_allowed');

    // ACTIVE once active_at passes, on the gateway's clock; GraphQL lists the same entry.
    await eventually(async () => {
      const list = await call('GET', '/v1/merchant/withdrawal_addresses');
      return list.body.withdrawal_addresses[0]?.status === 'ACTIVE' ? true : undefined;
    });
    const listed = await graphql<{
      withdrawalAddresses: { totalCount: number; edges: Array<{ node: Record<string, unknown> }> };
    }>(
      stack.url,
      key,
      '{ withdrawalAddresses(first: 5) { totalCount edges { node { id address status activeAt } } } }',
    );
    expect(listed.body.data!.withdrawalAddresses).toEqual({
      totalCount: 1,
      edges: [
        {
          node: { id: entry.id, address: destination, status: 'ACTIVE', activeAt: entry.active_at },
        },
      ],
    });

    // The runner announces it (its job runs every few seconds), before we remove it below: an
    // entry removed before its announcement is never announced.
    await eventually(async () =>
      webhooks('withdrawal_address.activated').length > 0 ? true : undefined,
    );

    const accepted = await withdraw(destination);
    expect(accepted.status).toBe(202);
    const completed = await eventually(async () => {
      const read = await call('GET', `/v1/merchant/withdrawals/${accepted.body.withdrawal_id}`);
      return read.body.status === 'COMPLETED' ? read.body : undefined;
    }, 60_000);
    const receipt = await chains
      .publicClient('BASE')
      .getTransactionReceipt({ hash: completed.tx_hash as `0x${string}` });
    expect(receipt.status).toBe('success');

    const removed = await call('DELETE', `/v1/merchant/withdrawal_addresses/${entry.id}`);
    expect({ status: removed.status, body: removed.body }).toEqual({
      status: 200,
      body: { ...entry, status: 'DELETED' },
    });
    const refusedAfter = await withdraw(destination);
    expect(refusedAfter.body.error?.code).toBe('address_not_allowed');
    expect((await call('GET', '/v1/merchant/withdrawal_addresses')).body).toEqual({
      withdrawal_addresses: [],
      pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 },
    });

    // Every change arrived, signed (verifyWebhook throws on a bad signature), with its entry.
    const kinds = [
      'merchant.settings_updated',
      'withdrawal_address.created',
      'withdrawal_address.activated',
      'withdrawal_address.deleted',
    ];
    const arrived = await eventually(async () => {
      const got = webhooks(...kinds);
      return got.length >= 4 ? got : undefined;
    }).catch((error: unknown) => {
      const seen = receiver.received.map((r) => (JSON.parse(r.body) as { event: string }).event);
      throw new Error(`${String(error)}; received: ${seen.join(', ')}`);
    });
    const byKind = Object.fromEntries(arrived.map((e) => [e.event, e.data]));
    expect(arrived.map((e) => e.event).sort()).toEqual([...kinds].sort());
    expect(byKind).toEqual({
      'merchant.settings_updated': { require_address_book: true, ...DEFAULT_RULES },
      'withdrawal_address.created': entry,
      'withdrawal_address.activated': { ...entry, status: 'ACTIVE' },
      'withdrawal_address.deleted': { ...entry, status: 'DELETED' },
    });
  }, 120_000);
});
