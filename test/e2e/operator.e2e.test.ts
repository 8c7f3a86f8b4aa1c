import { userInfo } from 'node:os';
import Decimal from 'decimal.js';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { balanceOnramp, createBalanceOnramp, freshRate, sandboxTransfer } from '../support/onramps';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { verifyWebhook, WebhookReceiver } from '../support/webhook-receiver';

// GraphQL answers are whatever the server sent; the tests assert on their shape.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/**
 * The operator's tools end to end: both processes running, the operator working through
 * `/admin/graphql` (operator token) and the `onramp` command line, the merchant seeing the
 * outcome through REST and signed webhooks.
 */
describe('operator tools', () => {
  let stack: Stack;
  let databaseUrl: string;
  let merchant: { merchant_id: string; api_key: string };
  let operatorToken: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    merchant = await createMerchant(databaseUrl, 'Operated Co');
    const issued = (await onrampCli(databaseUrl, [
      'operators',
      'issue',
      '--name',
      'ada',
      '--json',
    ])) as { token: string };
    operatorToken = issued.token;
    await receiver.start();
  });
  afterAll(async () => {
    await stack?.stop();
    await receiver.stop();
  });

  const admin = async (query: string, variables?: Record<string, unknown>) => {
    const response = await request<Loose>(stack.internalUrl, 'POST', '/admin/graphql', {
      key: operatorToken,
      body: { query, variables },
    });
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    return response.body.data;
  };
  const merchantGql = async (query: string, variables?: Record<string, unknown>) => {
    const response = await graphql<Loose>(stack.url, merchant.api_key, query, variables);
    expect(response.body.errors).toBeUndefined();
    return response.body.data;
  };
  const deposit = async (id: string) =>
    (await request(stack.url, 'GET', `/v1/deposits/${id}`, { key: merchant.api_key })).body;
  /**
   * The deposit's events as received (each verified), in the order they happened: deliveries
   * run concurrently, so arrival order is not event order.
   */
  const webhookKinds = (depositId: string, secret: string) =>
    receiver.received
      .map(
        (r) =>
          verifyWebhook(secret, r) as {
            event: string;
            created_at: string;
            data: { deposit_id: string; status: string };
          },
      )
      .filter((e) => e.data.deposit_id === depositId)
      .sort((a, b) => a.created_at.localeCompare(b.created_at))
      .map((e) => e.event);
  const treasury = async () =>
    (await admin('{ treasury }')).treasury as {
      serviceOwned: Record<string, string>;
      excluded: Record<string, string>;
    };
  const ledgerOk = async () =>
    (await admin('{ ledgerCheck { ok violations { invariant detail } } }')).ledgerCheck;

  it('refuses anything but a valid operator token, and operator tokens open nothing else', async () => {
    const query = { query: '{ ledgerCheck { ok } }' };
    for (const key of [undefined, merchant.api_key, `${operatorToken}x`, 'op_short']) {
      const response = await request<Loose>(stack.internalUrl, 'POST', '/admin/graphql', {
        key,
        body: query,
      });
      expect(response.status).toBe(401);
      expect(response.body.errors[0].extensions.code).toBe('UNAUTHORIZED');
      expect(response.body.data).toBeUndefined();
    }
    const asMerchant = await request(stack.url, 'GET', '/v1/merchant/balance', {
      key: operatorToken,
    });
    expect(asMerchant.status).toBe(401);
    expect(asMerchant.body.error.code).toBe('unauthorized');
    // Malformed input answers in the error shape, not 5xx.
    const bad = await request<Loose>(stack.internalUrl, 'POST', '/admin/graphql', {
      key: operatorToken,
      body: { query: 'mutation { resolveDeposit(id: "dep_nope", resolution: SETTLE) { status } }' },
    });
    expect(bad.status).toBe(200);
    expect(bad.body.errors[0].extensions.code).toBe('INVALID_PARAMETER');
    // Never on the public API port, even with a valid operator token.
    const onPublicPort = await request(stack.url, 'POST', '/admin/graphql', {
      key: operatorToken,
      body: query,
    });
    expect(onPublicPort.status).toBe(404);
    expect(onPublicPort.body.error.code).toBe('not_found');
  });

  it('resolves FLAGGED deposits both ways: status, events, ledger and audit', async () => {
    const endpoint = await merchantGql(
      'mutation($u: String!) { setWebhookEndpoint(url: $u) { secret } }',
      { u: receiver.url },
    );
    const secret: string = endpoint.setWebhookEndpoint.secret;
    const setFx = (fxFailure: string) =>
      merchantGql(
        'mutation($i: SandboxScenarioInput!) { setSandboxScenario(input: $i) { fxFailure } }',
        { i: { fxFailure } },
      );

    // Two transfers FLAGGED by a temporary FX failure.
    await setFx('TEMPORARY');
    const onramp = await createBalanceOnramp(stack.url, merchant.api_key);
    const account = onramp.virtual_account.account_number;
    const toSettle = await sandboxTransfer(stack.url, merchant.api_key, account, '15000');
    const toReturn = await sandboxTransfer(stack.url, merchant.api_key, account, '22000.50');
    for (const d of [toSettle, toReturn]) {
      await eventually(async () =>
        (await deposit(d.deposit_id)).status === 'FLAGGED' ? true : undefined,
      );
    }
    await setFx('NONE');
    expect((await deposit(toSettle.deposit_id)).flag_reason).toBe(
      'FX execution failed temporarily',
    );

    const listed = await admin(
      '{ flaggedDeposits(first: 10) { totalCount edges { node { depositId merchantId flagReason } } } }',
    );
    expect(listed.flaggedDeposits.edges.map((e: Loose) => e.node)).toEqual(
      expect.arrayContaining(
        [toSettle, toReturn].map((d) => ({
          depositId: d.deposit_id,
          merchantId: merchant.merchant_id,
          flagReason: 'FX execution failed temporarily',
        })),
      ),
    );
    const cliList = (await onrampCli(databaseUrl, ['deposits', 'flagged', '--json'])) as Loose;
    expect(cliList.deposits.map((d: Loose) => d.deposit_id)).toEqual(
      expect.arrayContaining([toSettle.deposit_id, toReturn.deposit_id]),
    );
    const before = await treasury();

    // Settle through the admin endpoint: PENDING_FX at the current rate, then the runner settles.
    const resolved = await admin(
      'mutation($id: ID!) { resolveDeposit(id: $id, resolution: SETTLE) { status flagReason rateId } }',
      { id: toSettle.deposit_id },
    );
    expect(resolved.resolveDeposit).toMatchObject({ status: 'PENDING_FX', flagReason: null });
    const settled = await eventually(async () => {
      const d = await deposit(toSettle.deposit_id);
      return d.status === 'SETTLED' ? d : undefined;
    });
    expect(settled.rate_id).toBe(resolved.resolveDeposit.rateId);

    // Return through the command line.
    const returned = (await onrampCli(databaseUrl, [
      'deposits',
      'resolve',
      toReturn.deposit_id,
      '--return',
      '--json',
    ])) as Loose;
    // Sent back to the payer: RETURNING, then RETURNED once the runner has the bank's answer.
    expect(returned).toMatchObject({
      deposit_id: toReturn.deposit_id,
      status: 'RETURNING',
      flag_reason: null,
    });
    await eventually(async () =>
      (await deposit(toReturn.deposit_id)).status === 'RETURNED' ? true : undefined,
    );

    // Events, as the merchant receives them (signed, verified).
    await eventually(async () =>
      webhookKinds(toSettle.deposit_id, secret).includes('deposit.settled') &&
      webhookKinds(toReturn.deposit_id, secret).includes('deposit.returned')
        ? true
        : undefined,
    );
    expect(webhookKinds(toSettle.deposit_id, secret)).toEqual([
      'deposit.created',
      'deposit.flagged',
      'deposit.created',
      'deposit.settled',
    ]);
    expect(webhookKinds(toReturn.deposit_id, secret)).toEqual([
      'deposit.created',
      'deposit.flagged',
      'deposit.returning',
      'deposit.returned',
    ]);

    // Ledger: the NGN left suspense; the settled one is owed to the merchant in USD, the
    // returned one went back to its payer (no fee configured here); every invariant holds.
    const after = await treasury();
    const diff = (a: string, b: string) => new Decimal(a).minus(b).toFixed();
    expect(diff(before.excluded.ngnSuspense, after.excluded.ngnSuspense)).toBe('37000.5');
    expect(diff(after.excluded.ngnReturns, before.excluded.ngnReturns)).toBe('0');
    expect(
      diff(after.serviceOwned.usdOwedToMerchants, before.serviceOwned.usdOwedToMerchants),
    ).toBe(new Decimal(settled.amount_asset).toFixed());
    expect(await ledgerOk()).toEqual({ ok: true, violations: [] });

    // Audit: who, what, when, before and after.
    const audit = async (targetId: string) =>
      (
        await admin(
          'query($t: ID!) { auditLog(targetId: $t) { edges { node { actor action targetType targetId before after createdAt } } } }',
          { t: targetId },
        )
      ).auditLog.edges.map((e: Loose) => e.node);
    expect(await audit(toSettle.deposit_id)).toEqual([
      expect.objectContaining({
        actor: 'operator:ada',
        action: 'deposit.resolve_settle',
        targetType: 'deposit',
        before: expect.objectContaining({ status: 'FLAGGED' }),
        after: expect.objectContaining({ status: 'PENDING_FX', flag_reason: null }),
        createdAt: expect.any(String),
      }),
    ]);
    expect(await audit(toReturn.deposit_id)).toEqual([
      expect.objectContaining({
        actor: `cli:${userInfo().username}`,
        action: 'deposit.resolve_return',
        after: expect.objectContaining({ status: 'RETURNING', flag_reason: null }),
      }),
    ]);
  });

  it('a frozen merchant gets no onramps and its transfers are FLAGGED; unfreezing lets new onramps through', async () => {
    const onramp = await createBalanceOnramp(stack.url, merchant.api_key);
    const frozen = await admin('mutation($id: ID!) { freezeMerchant(id: $id) { id status } }', {
      id: merchant.merchant_id,
    });
    expect(frozen.freezeMerchant).toEqual({ id: merchant.merchant_id, status: 'FROZEN' });

    const refused = await request(stack.url, 'POST', '/v1/onramp', {
      key: merchant.api_key,
      body: balanceOnramp((await freshRate(stack.url, merchant.api_key)).rate_id),
    });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('merchant_frozen');
    const held = await sandboxTransfer(
      stack.url,
      merchant.api_key,
      onramp.virtual_account.account_number,
      '15000',
    );
    expect(held).toMatchObject({ status: 'FLAGGED', flag_reason: 'Merchant account frozen' });

    const unfrozen = (await onrampCli(databaseUrl, [
      'merchants',
      'unfreeze',
      merchant.merchant_id,
      '--json',
    ])) as Loose;
    expect(unfrozen).toEqual({ merchant_id: merchant.merchant_id, status: 'ACTIVE' });
    const next = await createBalanceOnramp(stack.url, merchant.api_key);
    const fresh = await sandboxTransfer(
      stack.url,
      merchant.api_key,
      next.virtual_account.account_number,
      '15000',
    );
    await eventually(async () =>
      (await deposit(fresh.deposit_id)).status === 'SETTLED' ? true : undefined,
    );
    const audit = (
      await admin(
        'query($t: ID!) { auditLog(targetId: $t) { edges { node { actor action before after } } } }',
        { t: merchant.merchant_id },
      )
    ).auditLog.edges.map((e: Loose) => e.node);
    expect(audit.map((e: Loose) => [e.actor.split(':')[0], e.action, e.after.status])).toEqual([
      ['cli', 'merchant.unfreeze', 'ACTIVE'],
      ['operator', 'merchant.freeze', 'FROZEN'],
      ['cli', 'merchant.create', 'ACTIVE'],
    ]);
    expect(await ledgerOk()).toEqual({ ok: true, violations: [] });
  });
});
