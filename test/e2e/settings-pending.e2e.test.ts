// Issue 32, finding 1: a leaked `all` key turning the address book off must wait
// WITHDRAWAL_ADDRESS_DELAY_SECONDS. Through REST, GraphQL and a dashboard session against a
// real gateway and job runner: the widening shows under pending_changes, a withdrawal to a
// fresh address is still refused, and after the delay the change applies and
// merchant.settings_updated arrives at the receiver at the request and at the effect.
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import {
  balanceOnramp,
  createOnramp,
  freshRate,
  randomAddress,
  sandboxTransfer,
} from '../support/onramps';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

/** Long enough for the steps before the effect on a loaded machine, short enough to wait. */
const DELAY_SECONDS = 8;

type Settings = {
  require_address_book: boolean;
  pending_changes: Array<{ field: string; value: unknown; effective_at: string }>;
  [setting: string]: unknown;
};

describe('widening settings wait WITHDRAWAL_ADDRESS_DELAY_SECONDS', () => {
  let databaseUrl: string;
  let stack: Stack;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    [stack] = await Promise.all([
      startStack(databaseUrl, {
        env: {
          RATE_LIMIT_PER_MINUTE: '100000',
          WITHDRAWAL_ADDRESS_DELAY_SECONDS: String(DELAY_SECONDS),
        },
      }),
      receiver.start(),
    ]);
  }, 90_000);
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  /** A merchant with its webhook endpoint at the receiver (its secret to verify them). */
  async function merchant(name: string) {
    const { api_key: key, merchant_id: id } = await createMerchant(databaseUrl, name);
    const set = await graphql<{ setWebhookEndpoint: { secret: string } }>(
      stack.url,
      key,
      'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
      { u: receiver.url },
    );
    const secret = set.body.data!.setWebhookEndpoint.secret;
    const settingsEvents = () =>
      receiver.received
        .map((raw) => {
          try {
            return verifyWebhook(secret, raw) as { event: string; data: Settings };
          } catch {
            return undefined; // another merchant's delivery
          }
        })
        .filter((e) => e?.event === 'merchant.settings_updated')
        .map((e) => e!.data);
    return { key, id, settingsEvents };
  }

  const rest = (key: string, method: string, path: string, body?: unknown) =>
    request(stack.url, method, path, { key, body });
  const withdrawRest = (key: string) =>
    rest(key, 'POST', '/v1/merchant/withdraw', {
      amount: '2',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: randomAddress(),
    });

  it('REST: turning the address book off waits; a fresh address is refused until effective_at', async () => {
    const { key, settingsEvents } = await merchant('Leaked Key Co');
    const on = await rest(key, 'PATCH', '/v1/merchant/settings', { require_address_book: true });
    expect({
      status: on.status,
      on: on.body.require_address_book,
      pending: on.body.pending_changes,
    }).toEqual({ status: 200, on: true, pending: [] });

    const requestedAt = Date.now();
    const off = await rest(key, 'PATCH', '/v1/merchant/settings', { require_address_book: false });
    // The gateway stamped the request between these two moments, however loaded the machine.
    const answeredAt = Date.now();
    expect(off.status).toBe(200);
    const body = off.body as Settings;
    expect(body.require_address_book).toBe(true);
    expect(body.pending_changes).toEqual([
      { field: 'require_address_book', value: false, effective_at: expect.any(String) },
    ]);
    const effectiveAt = Date.parse(body.pending_changes[0].effective_at);
    expect(effectiveAt - requestedAt).toBeGreaterThanOrEqual(DELAY_SECONDS * 1000 - 1);
    expect(effectiveAt - answeredAt).toBeLessThanOrEqual(DELAY_SECONDS * 1000 + 1);

    // The attacker's next step: a withdrawal to an address of their own.
    const refused = await withdrawRest(key);
    expect({ status: refused.status, code: refused.body.error?.code }).toEqual({
      status: 422,
      code: 'address_not_allowed',
    });
    expect((await rest(key, 'GET', '/v1/merchant/settings')).body).toEqual(body);

    // After the delay the setting applies: the address check passes (an empty balance is what
    // refuses now), the answer shows it, and the effect is announced.
    await eventually(async () => (Date.now() >= effectiveAt ? true : undefined), 30_000);
    const after = await rest(key, 'GET', '/v1/merchant/settings');
    expect({ off: after.body.require_address_book, pending: after.body.pending_changes }).toEqual({
      off: false,
      pending: [],
    });
    const passes = await withdrawRest(key);
    expect({ status: passes.status, code: passes.body.error?.code }).toEqual({
      status: 422,
      code: 'insufficient_balance',
    });
    const events = await eventually(async () => {
      const seen = settingsEvents();
      return seen.length >= 3 ? seen : undefined;
    }, 30_000);
    expect(events.map((e) => [e.require_address_book, e.pending_changes.length])).toEqual([
      [true, 0], // turned on: immediate
      [true, 1], // the request: still on, the change pending
      [false, 0], // the effect
    ]);
    expect(events[1].pending_changes).toEqual(body.pending_changes);
  }, 90_000);

  it('REST: tightening is immediate and cancels a pending widening; a mixed PATCH splits', async () => {
    const { key } = await merchant('Mixed Co');
    const mixed = await rest(key, 'PATCH', '/v1/merchant/settings', {
      underpayment: { tolerance_ngn: '50.00', action: 'return' },
      payer_resolution: { allow_settle: true },
      payer_name_check: { enabled: true },
    });
    expect(mixed.status).toBe(200);
    // accept -> return and the name check on tighten: now. The tolerance and allow_settle wait.
    expect(mixed.body.underpayment).toEqual({
      tolerance_ngn: '0.00',
      tolerance_bps: 0,
      action: 'return',
    });
    expect(mixed.body.payer_name_check).toEqual({ enabled: true, action: 'flag' });
    expect(mixed.body.payer_resolution).toEqual({ allow_settle: false });
    expect(
      (mixed.body as Settings).pending_changes.map(({ field, value }) => ({ field, value })),
    ).toEqual(
      expect.arrayContaining([
        { field: 'underpayment.tolerance_ngn', value: '50.00' },
        { field: 'payer_resolution.allow_settle', value: true },
      ]),
    );
    expect(mixed.body.pending_changes).toHaveLength(2);

    const cancel = await rest(key, 'PATCH', '/v1/merchant/settings', {
      payer_resolution: { allow_settle: false },
    });
    expect(cancel.body.payer_resolution).toEqual({ allow_settle: false });
    expect(cancel.body.pending_changes).toEqual([
      { field: 'underpayment.tolerance_ngn', value: '50.00', effective_at: expect.any(String) },
    ]);
    // A lower tolerance than the pending one, still above what applies: replaces it.
    const replaced = await rest(key, 'PATCH', '/v1/merchant/settings', {
      underpayment: { tolerance_ngn: '20.00' },
    });
    expect(replaced.body.pending_changes).toEqual([
      { field: 'underpayment.tolerance_ngn', value: '20.00', effective_at: expect.any(String) },
    ]);
    // Turning the name check off is a widening too.
    const nameOff = await rest(key, 'PATCH', '/v1/merchant/settings', {
      payer_name_check: { enabled: false },
    });
    expect(nameOff.body.payer_name_check).toEqual({ enabled: true, action: 'flag' });
    expect(nameOff.body.pending_changes.map((c: { field: string }) => c.field).sort()).toEqual([
      'payer_name_check.enabled',
      'underpayment.tolerance_ngn',
    ]);
  }, 60_000);

  it("payer_resolution.allow_settle waits: the payer's page offers settle only from effective_at", async () => {
    const { key } = await merchant('Payer Page Co');
    // A FLAGGED deposit: the second transfer to a THROWAWAY onramp.
    const rate = await freshRate(stack.url, key);
    const onramp = await createOnramp(stack.url, key, balanceOnramp(rate.rate_id, 'THROWAWAY'));
    const account = onramp.virtual_account.account_number;
    const first = await sandboxTransfer(stack.url, key, account, '20000');
    await eventually(async () => {
      const read = await rest(key, 'GET', `/v1/deposits/${first.deposit_id}`);
      return read.body.status === 'SETTLED' ? true : undefined;
    });
    const second = await sandboxTransfer(stack.url, key, account, '5000');
    expect(second.status).toBe('FLAGGED');

    const allow = await rest(key, 'PATCH', '/v1/merchant/settings', {
      payer_resolution: { allow_settle: true },
    });
    expect(allow.body.payer_resolution).toEqual({ allow_settle: false });
    const effectiveAt = Date.parse(allow.body.pending_changes[0].effective_at);
    const link = await rest(key, 'POST', `/v1/deposits/${second.deposit_id}/resolution_link`);
    expect(link.status).toBe(201);
    const page = async () => (await fetch(link.body.url as string)).text();
    expect(await page()).not.toContain('id="settle"');
    await eventually(async () => (Date.now() >= effectiveAt ? true : undefined), 30_000);
    expect(await page()).toContain('id="settle"');
  }, 90_000);

  it('GraphQL: updateMerchantSettings answers pendingChanges and withdraw stays refused', async () => {
    const { key } = await merchant('Graph Co');
    const update = (input: Record<string, unknown>) =>
      graphql(
        stack.url,
        key,
        `
          mutation ($input: UpdateMerchantSettingsInput!) {
            updateMerchantSettings(input: $input) {
              requireAddressBook
              pendingChanges {
                field
                value
                effectiveAt
              }
            }
          }
        `,
        { input },
      );
    await update({ requireAddressBook: true });
    const off = await update({ requireAddressBook: false });
    expect(off.body.errors).toBeUndefined();
    expect(off.body.data.updateMerchantSettings).toEqual({
      requireAddressBook: true,
      pendingChanges: [
        { field: 'require_address_book', value: false, effectiveAt: expect.any(String) },
      ],
    });
    const withdrawal = await graphql(
      stack.url,
      key,
      `
        mutation ($input: WithdrawInput!) {
          withdraw(input: $input) {
            id
          }
        }
      `,
      { input: { amount: '2', asset: 'USDC', chain: 'BASE', destinationAddress: randomAddress() } },
    );
    expect(withdrawal.body.errors?.[0].extensions?.code).toBe('ADDRESS_NOT_ALLOWED');
    const read = await graphql(
      stack.url,
      key,
      '{ merchantSettings { requireAddressBook pendingChanges { field value effectiveAt } } }',
    );
    expect(read.body.data.merchantSettings).toEqual(off.body.data.updateMerchantSettings);
    // Tightening again cancels it at once.
    const back = await update({ requireAddressBook: true });
    expect(back.body.data.updateMerchantSettings).toEqual({
      requireAddressBook: true,
      pendingChanges: [],
    });
  }, 60_000);

  it('a dashboard session is held to the same delay', async () => {
    const { key } = await merchant('Session Co');
    await rest(key, 'PATCH', '/v1/merchant/settings', { require_address_book: true });
    const signIn = await request(stack.url, 'POST', '/dashboard/api/session', {
      body: { api_key: key },
    });
    expect(signIn.status).toBe(201);
    const cookie = (signIn.headers.get('set-cookie') ?? '').split(';')[0];
    const session = { cookie, 'x-csrf-token': signIn.body.csrf_token as string };
    const gql = (query: string, variables?: Record<string, unknown>) =>
      request(stack.url, 'POST', '/graphql', { headers: session, body: { query, variables } });
    const off = await gql(
      `mutation($input: UpdateMerchantSettingsInput!) {
        updateMerchantSettings(input: $input) { requireAddressBook pendingChanges { field value } }
      }`,
      { input: { requireAddressBook: false } },
    );
    expect(off.body.data.updateMerchantSettings).toEqual({
      requireAddressBook: true,
      pendingChanges: [{ field: 'require_address_book', value: false }],
    });
    const withdrawal = await gql(
      `mutation($input: WithdrawInput!) { withdraw(input: $input) { id } }`,
      { input: { amount: '2', asset: 'USDC', chain: 'BASE', destinationAddress: randomAddress() } },
    );
    expect(withdrawal.body.errors?.[0].extensions?.code).toBe('ADDRESS_NOT_ALLOWED');
  }, 60_000);
});
