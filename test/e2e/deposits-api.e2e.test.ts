import { randomBytes } from 'node:crypto';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, onrampCli, startStack, type Stack } from '../support/stack';
import { graphql, request } from '../support/http';
import { balanceOnramp, freshRate } from '../support/onramps';
import { DEPOSIT_KEYS } from '../support/rest-objects';
import { productionProviders } from '../support/production-providers';

const GQL_DEPOSIT = `id depositId onrampId merchantId paymentReference userEmail amountNgn
  bankReference rateId amountAsset asset chain txHash status failureReason flagReason createdAt
  settledAt updatedAt`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

const reference = (label: string) => `${label}-${randomBytes(6).toString('hex')}`;

interface Connection {
  totalCount: number;
  pageInfo: { hasNextPage: boolean; hasPreviousPage: boolean; endCursor: string | null };
  edges: Array<{ cursor: string; node: { id: string; depositId: string; amountNgn: unknown } }>;
}

/** The GraphQL Deposit a REST Deposit should equal (camelCase, plus `id`). */
function asGraphQL(d: Record<string, unknown>) {
  return {
    id: d.deposit_id,
    depositId: d.deposit_id,
    onrampId: d.onramp_id,
    merchantId: d.merchant_id,
    paymentReference: d.payment_reference,
    userEmail: d.user_email,
    amountNgn: d.amount_ngn,
    bankReference: d.bank_reference,
    rateId: d.rate_id,
    amountAsset: d.amount_asset,
    asset: d.asset,
    chain: d.chain,
    txHash: d.tx_hash,
    status: d.status,
    failureReason: d.failure_reason,
    flagReason: d.flag_reason,
    createdAt: d.created_at,
    settledAt: d.settled_at,
    updatedAt: d.updated_at,
  };
}

describe('deposits API end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let merchantId: string;
  let otherKey: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Acme Stores'));
    ({ api_key: otherKey } = await createMerchant(databaseUrl, 'Other Co'));
  });
  afterAll(() => stack?.stop());

  const get = (path: string, k = key) => request(stack.url, 'GET', path, { key: k });
  const simulate = (body: unknown, k = key) =>
    request(stack.url, 'POST', '/v1/sandbox/deposits', { key: k, body });
  const reverse = (bankReference: string, k = key) =>
    request(stack.url, 'POST', '/v1/sandbox/reversals', {
      key: k,
      body: { bank_reference: bankReference },
    });

  async function newOnramp(k = key, type = 'EPHEMERAL') {
    const rate = await freshRate(stack.url, k);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key: k,
      body: balanceOnramp(rate.rate_id, type),
    });
    expect(created.status).toBe(201);
    return created.body as {
      onramp_id: string;
      rate_id: string;
      client_secret: string;
      payment_reference: string;
      virtual_account: { account_number: string };
    };
  }

  it('records a simulated transfer (201), replays it by bank_reference (200) and shows every field', async () => {
    const onramp = await newOnramp();
    const bankReference = reference('BR');
    const first = await simulate({
      account_number: onramp.virtual_account.account_number,
      amount_ngn: '5000',
      bank_reference: bankReference,
    });
    expect(first.status).toBe(201);
    const d = first.body;
    expect(Object.keys(d).sort()).toEqual(DEPOSIT_KEYS);
    expect(d).toMatchObject({
      onramp_id: onramp.onramp_id,
      merchant_id: merchantId,
      payment_reference: onramp.payment_reference,
      user_email: 'ada@example.com',
      amount_ngn: '5000.00',
      bank_reference: bankReference,
      rate_id: onramp.rate_id,
      asset: 'USDC',
      chain: null,
      tx_hash: null,
      failure_reason: null,
      flag_reason: null,
    });
    expect(d.deposit_id).toMatch(/^dep_/);
    expect(typeof d.amount_asset).toBe('string');
    expect(d.amount_asset).toMatch(/^[0-9]+\.[0-9]{6}$/);
    expect(['PENDING_FX', 'SETTLED']).toContain(d.status);
    expect(d.created_at).toMatch(ISO);
    expect(d.updated_at).toMatch(ISO);

    const replay = await simulate({
      account_number: onramp.virtual_account.account_number,
      amount_ngn: '5000',
      bank_reference: bankReference,
    });
    expect(replay.status).toBe(200);
    expect(replay.body.deposit_id).toBe(d.deposit_id);

    const read = await get(`/v1/deposits/${d.deposit_id}`);
    expect(read.status).toBe(200);
    expect(Object.keys(read.body).sort()).toEqual(DEPOSIT_KEYS);
    expect(read.body.deposit_id).toBe(d.deposit_id);

    // A JSON number is accepted and kept exact; no bank_reference: one is generated.
    const numeric = await simulate({
      account_number: onramp.virtual_account.account_number,
      amount_ngn: 2500.5,
    });
    expect(numeric.status).toBe(201);
    expect(numeric.body.amount_ngn).toBe('2500.50');
    expect(numeric.body.bank_reference).toMatch(/^SBX-[0-9A-Z]{26}$/);
    expect(numeric.body.deposit_id).not.toBe(d.deposit_id);
  });

  it('answers FLAGGED and FAILED first statuses with their reasons, the same over GraphQL', async () => {
    const throwaway = await newOnramp(key, 'THROWAWAY');
    const account = throwaway.virtual_account.account_number;
    const first = await simulate({ account_number: account, amount_ngn: '3000' });
    expect(first.status).toBe(201);
    expect(['PENDING_FX', 'SETTLED']).toContain(first.body.status);
    const second = await simulate({ account_number: account, amount_ngn: '3000' });
    expect(second.status).toBe(201);
    expect(second.body).toMatchObject({
      status: 'FLAGGED',
      flag_reason: 'Second transfer to a throwaway onramp',
      failure_reason: null,
      amount_ngn: '3000.00',
    });

    const ephemeral = await newOnramp();
    const small = await simulate({
      account_number: ephemeral.virtual_account.account_number,
      amount_ngn: '100',
    });
    expect(small.status).toBe(201);
    expect(small.body).toMatchObject({
      status: 'FAILED',
      failure_reason: 'Below minimum deposit',
      flag_reason: null,
      amount_asset: null,
      amount_ngn: '100.00',
    });

    // Terminal deposits do not change, so REST and GraphQL must agree field by field.
    for (const rest of [second.body, small.body]) {
      const gql = await graphql(
        stack.url,
        key,
        `{ deposit(id: "${rest.deposit_id}") { ${GQL_DEPOSIT} } }`,
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.deposit).toEqual(asGraphQL(rest));
    }
  });

  it('refuses malformed simulations and accounts of other merchants', async () => {
    const onramp = await newOnramp();
    const account = onramp.virtual_account.account_number;
    const cases: Array<[unknown, number, string]> = [
      [{ account_number: account, amount_ngn: '5000', sender_name: 'X' }, 400, 'invalid_parameter'],
      [{ amount_ngn: '5000' }, 400, 'missing_parameter'],
      [{ account_number: account }, 400, 'missing_parameter'],
      [{ account_number: account, amount_ngn: '1.234' }, 400, 'invalid_parameter'],
      [{ account_number: account, amount_ngn: true }, 400, 'invalid_parameter'],
      [{ account_number: account, amount_ngn: '-5' }, 400, 'invalid_parameter'],
      [{ account_number: '12345', amount_ngn: '5000' }, 400, 'invalid_parameter'],
      [{ account_number: '0000000000', amount_ngn: '5000' }, 404, 'not_found'],
    ];
    for (const [body, status, code] of cases) {
      const response = await simulate(body);
      expect({ body, status: response.status, code: response.body.error?.code }).toEqual({
        body,
        status,
        code,
      });
    }
    const notTheirs = await simulate({ account_number: account, amount_ngn: '5000' }, otherKey);
    expect(notTheirs.status).toBe(404);
    expect(notTheirs.body.error.code).toBe('not_found');
    const reversalExtra = await request(stack.url, 'POST', '/v1/sandbox/reversals', {
      key,
      body: { bank_reference: 'X', amount_ngn: '1' },
    });
    expect(reversalExtra.status).toBe(400);
    expect(reversalExtra.body.error.code).toBe('invalid_parameter');
  });

  describe('listing', () => {
    let listKey: string;
    let listMerchant: string;
    let o1: Awaited<ReturnType<typeof newOnramp>>;
    let o2: Awaited<ReturnType<typeof newOnramp>>;
    /** All six deposits, newest first, as the API lists them. */
    let all: Array<Record<string, string>>;
    let beforeLast: string;

    beforeAll(async () => {
      ({ api_key: listKey, merchant_id: listMerchant } = await createMerchant(
        databaseUrl,
        'Lister',
      ));
      o1 = await newOnramp(listKey);
      o2 = await newOnramp(listKey);
      const send = async (onramp: typeof o1, amount: string) => {
        const response = await simulate(
          { account_number: onramp.virtual_account.account_number, amount_ngn: amount },
          listKey,
        );
        expect(response.status).toBe(201);
        await new Promise((r) => setTimeout(r, 5)); // distinct created_at values
      };
      await send(o1, '2000');
      await send(o1, '2100');
      await send(o2, '2200');
      await send(o1, '2300');
      await send(o2, '100'); // FAILED: below minimum
      beforeLast = new Date().toISOString();
      await send(o2, '2400');
      const listed = await get('/v1/deposits?per_page=100', listKey);
      expect(listed.status).toBe(200);
      all = listed.body.deposits;
    });

    const ids = (deposits: Array<Record<string, string>>) => deposits.map((d) => d.deposit_id);

    it('lists newest first with the pagination object of the spec', async () => {
      expect(all.map((d) => d.amount_ngn)).toEqual([
        '2400.00',
        '100.00',
        '2300.00',
        '2200.00',
        '2100.00',
        '2000.00',
      ]);
      for (const d of all) {
        expect(Object.keys(d).sort()).toEqual(DEPOSIT_KEYS);
        expect(d.merchant_id).toBe(listMerchant);
      }
      const page1 = await get('/v1/deposits?per_page=4', listKey);
      expect(page1.body.pagination).toEqual({ total: 6, page: 1, per_page: 4, total_pages: 2 });
      const page2 = await get('/v1/deposits?per_page=4&page=2', listKey);
      expect(page2.body.pagination).toEqual({ total: 6, page: 2, per_page: 4, total_pages: 2 });
      expect([...ids(page1.body.deposits), ...ids(page2.body.deposits)]).toEqual(ids(all));
      const past = await get('/v1/deposits?per_page=4&page=3', listKey);
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        deposits: [],
        pagination: { total: 6, page: 3, per_page: 4, total_pages: 2 },
      });
      const defaults = await get('/v1/deposits', listKey);
      expect(defaults.body.pagination).toEqual({ total: 6, page: 1, per_page: 20, total_pages: 1 });
    });

    it('filters by status, onramp, created_at (dates and timestamps) and updated_since', async () => {
      const failed = await get('/v1/deposits?status=FAILED', listKey);
      expect(failed.body.deposits.map((d: Record<string, string>) => d.amount_ngn)).toEqual([
        '100.00',
      ]);
      expect(failed.body.pagination.total).toBe(1);

      const ofO1 = await get(`/v1/deposits?onramp_id=${o1.onramp_id}`, listKey);
      expect(ids(ofO1.body.deposits)).toEqual(ids(all.filter((d) => d.onramp_id === o1.onramp_id)));
      expect(ofO1.body.pagination.total).toBe(3);

      const both = await get(`/v1/deposits?onramp_id=${o2.onramp_id}&status=FAILED`, listKey);
      expect(both.body.pagination.total).toBe(1);

      // Timestamps: both bounds inclusive.
      const middle = all[3].created_at;
      const from = await get(`/v1/deposits?from=${encodeURIComponent(middle)}`, listKey);
      expect(ids(from.body.deposits)).toEqual(ids(all.filter((d) => d.created_at >= middle)));
      expect(ids(from.body.deposits)).toContain(all[3].deposit_id);
      const to = await get(`/v1/deposits?to=${encodeURIComponent(middle)}`, listKey);
      expect(ids(to.body.deposits)).toEqual(ids(all.filter((d) => d.created_at <= middle)));
      expect(ids(to.body.deposits)).toContain(all[3].deposit_id);
      const exact = await get(
        `/v1/deposits?from=${encodeURIComponent(middle)}&to=${encodeURIComponent(middle)}`,
        listKey,
      );
      expect(ids(exact.body.deposits)).toEqual([all[3].deposit_id]);
      // A zone offset is honoured: the same instant written in +01:00.
      const shifted = new Date(Date.parse(middle) + 3_600_000).toISOString().replace('Z', '+01:00');
      const offset = await get(`/v1/deposits?from=${encodeURIComponent(shifted)}`, listKey);
      expect(ids(offset.body.deposits)).toEqual(ids(from.body.deposits));

      // A date without a time is the whole UTC day.
      const day = all[0].created_at.slice(0, 10);
      const sameDay = await get(`/v1/deposits?from=${day}&to=${day}`, listKey);
      expect(ids(sameDay.body.deposits)).toEqual(
        ids(all.filter((d) => d.created_at.slice(0, 10) === day)),
      );
      const dayMs = 86_400_000;
      const nextDay = new Date(Date.parse(`${day}T00:00:00Z`) + dayMs).toISOString().slice(0, 10);
      const prevDay = new Date(Date.parse(`${day}T00:00:00Z`) - dayMs).toISOString().slice(0, 10);
      expect((await get(`/v1/deposits?from=${nextDay}`, listKey)).body.deposits).toEqual([]);
      expect((await get(`/v1/deposits?to=${prevDay}`, listKey)).body.pagination.total).toBe(0);

      const since = await get(
        `/v1/deposits?updated_since=${encodeURIComponent(beforeLast)}`,
        listKey,
      );
      expect(ids(since.body.deposits)).toContain(all[0].deposit_id);
      for (const d of since.body.deposits) expect(d.updated_at >= beforeLast).toBe(true);
      const future = new Date(Date.now() + 3_600_000).toISOString();
      const none = await get(`/v1/deposits?updated_since=${encodeURIComponent(future)}`, listKey);
      expect(none.body).toEqual({
        deposits: [],
        pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 },
      });
    });

    it('refuses invalid filter values and page sizes with 400 invalid_parameter', async () => {
      for (const query of [
        'status=DONE',
        'status=settled',
        'from=yesterday',
        'from=2026-02-30',
        'to=2026-01-01T10:00:00',
        'to=2026-13-01',
        'updated_since=abc',
        'per_page=101',
        'per_page=0',
        'page=0',
        'page=abc',
      ]) {
        const response = await get(`/v1/deposits?${query}`, listKey);
        expect({ query, status: response.status, code: response.body.error?.code }).toEqual({
          query,
          status: 400,
          code: 'invalid_parameter',
        });
      }
    });

    it('lets a client secret read the deposits of its own onramp only (403 for others)', async () => {
      const secret = o1.client_secret;
      const own = await get('/v1/deposits', secret);
      expect(own.status).toBe(200);
      expect(ids(own.body.deposits)).toEqual(ids(all.filter((d) => d.onramp_id === o1.onramp_id)));
      const named = await get(`/v1/deposits?onramp_id=${o1.onramp_id}&per_page=1`, secret);
      expect(named.body.pagination).toEqual({ total: 3, page: 1, per_page: 1, total_pages: 3 });

      const ownDeposit = all.find((d) => d.onramp_id === o1.onramp_id)!;
      const otherDeposit = all.find((d) => d.onramp_id === o2.onramp_id)!;
      const read = await get(`/v1/deposits/${ownDeposit.deposit_id}`, secret);
      expect(read.status).toBe(200);
      expect(read.body.deposit_id).toBe(ownDeposit.deposit_id);

      for (const path of [
        `/v1/deposits?onramp_id=${o2.onramp_id}`,
        `/v1/deposits/${otherDeposit.deposit_id}`,
        '/v1/merchant/balance',
      ]) {
        const response = await get(path, secret);
        expect({ path, status: response.status, code: response.body.error?.code }).toEqual({
          path,
          status: 403,
          code: 'forbidden',
        });
      }
      const unknown = await get('/v1/deposits/dep_01JUNKNOWN0000000000000000', secret);
      expect(unknown.status).toBe(404);
      expect(unknown.body.error.code).toBe('not_found');
      const simulated = await simulate(
        { account_number: o1.virtual_account.account_number, amount_ngn: '5000' },
        secret,
      );
      expect(simulated.status).toBe(403);

      const gqlOwn = await graphql(
        stack.url,
        secret,
        '{ deposits { totalCount edges { node { onrampId } } } }',
      );
      expect(gqlOwn.body.errors).toBeUndefined();
      expect(gqlOwn.body.data.deposits.totalCount).toBe(3);
      const gqlRead = await graphql(
        stack.url,
        secret,
        `{ deposit(id: "${ownDeposit.deposit_id}") { depositId } }`,
      );
      expect(gqlRead.body.data.deposit).toEqual({ depositId: ownDeposit.deposit_id });
      for (const query of [
        `{ deposits(filter: { onrampId: "${o2.onramp_id}" }) { totalCount } }`,
        `{ deposit(id: "${otherDeposit.deposit_id}") { depositId } }`,
        `mutation { simulateDeposit(input: { accountNumber: "${o1.virtual_account.account_number}", amountNgn: "5000" }) { depositId } }`,
        `mutation { simulateReversal(bankReference: "${ownDeposit.bank_reference}") { depositId } }`,
      ]) {
        const response = await graphql(stack.url, secret, query);
        expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
          query,
          code: 'FORBIDDEN',
        });
      }
    });

    it('hides the deposits of other merchants: 404 over REST, null over GraphQL', async () => {
      const theirs = all[0].deposit_id;
      const rest = await get(`/v1/deposits/${theirs}`, otherKey);
      expect(rest.status).toBe(404);
      expect(rest.body.error.code).toBe('not_found');
      const gql = await graphql(stack.url, otherKey, `{ deposit(id: "${theirs}") { depositId } }`);
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.deposit).toBeNull();
      const listed = await get(`/v1/deposits?onramp_id=${o1.onramp_id}`, otherKey);
      expect(listed.body.deposits).toEqual([]);
      const gqlList = await graphql(
        stack.url,
        otherKey,
        `{ deposits(filter: { onrampId: "${o1.onramp_id}" }) { totalCount } }`,
      );
      expect(gqlList.body.data.deposits.totalCount).toBe(0);
    });

    it('pages a GraphQL connection with cursors, filters, and refuses bad arguments', async () => {
      const seen: string[] = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const response = await graphql<{ deposits: Connection }>(
          stack.url,
          listKey,
          `query($after: String) { deposits(first: 4, after: $after) {
            totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
            edges { cursor node { ${GQL_DEPOSIT} } } } }`,
          { after },
        );
        expect(response.body.errors).toBeUndefined();
        const connection: Connection = response.body.data!.deposits;
        expect(connection.totalCount).toBe(6);
        expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
        for (const edge of connection.edges) {
          expect(typeof edge.node.amountNgn).toBe('string');
          expect(edge.node.id).toBe(edge.node.depositId);
          seen.push(edge.node.depositId);
        }
        pages += 1;
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor;
      }
      expect(pages).toBe(2);
      expect(seen).toEqual(ids(all));

      const day = all[0].created_at.slice(0, 10);
      const filtered = await graphql(
        stack.url,
        listKey,
        `{ deposits(filter: { status: FAILED, onrampId: "${o2.onramp_id}", from: "${day}", to: "${day}" }) { totalCount edges { node { amountNgn failureReason } } } }`,
      );
      expect(filtered.body.data.deposits).toEqual({
        totalCount: 1,
        edges: [{ node: { amountNgn: '100.00', failureReason: 'Below minimum deposit' } }],
      });
      const since = await graphql(
        stack.url,
        listKey,
        `{ deposits(filter: { updatedSince: "${new Date(Date.now() + 3_600_000).toISOString()}" }) { totalCount } }`,
      );
      expect(since.body.data.deposits.totalCount).toBe(0);

      for (const query of [
        '{ deposits(first: 101) { totalCount } }',
        '{ deposits(first: 0) { totalCount } }',
        '{ deposits(after: "nonsense") { totalCount } }',
        '{ deposits(filter: { from: "yesterday" }) { totalCount } }',
        '{ deposits(filter: { updatedSince: "2026-01-01T10:00:00" }) { totalCount } }',
        '{ deposits(filter: { status: DONE }) { totalCount } }',
      ]) {
        const response = await graphql(stack.url, listKey, query);
        expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
          query,
          code: 'INVALID_PARAMETER',
        });
      }
    });
  });

  it('shows the balance from the ledger over REST and GraphQL', async () => {
    const { api_key: balanceKey, merchant_id: id } = await createMerchant(databaseUrl, 'Balancer');
    const empty = await get('/v1/merchant/balance', balanceKey);
    expect(empty.status).toBe(200);
    expect(empty.body).toEqual({
      merchant_id: id,
      // usd_reserved: v0.3 (reserves, issue 36).
      balances: {
        usd_available: '0.000000',
        usd_pending_withdrawal: '0.000000',
        usd_reserved: '0.000000',
      },
      updated_at: expect.stringMatching(ISO),
    });

    const onramp = await newOnramp(balanceKey);
    const deposit = (
      await simulate(
        { account_number: onramp.virtual_account.account_number, amount_ngn: '7500' },
        balanceKey,
      )
    ).body;
    // The job runner settles MERCHANT_BALANCE deposits into the balance.
    const settled = await eventually(async () => {
      const read = await get(`/v1/deposits/${deposit.deposit_id}`, balanceKey);
      return read.body.status === 'SETTLED' ? read.body : undefined;
    });
    expect(settled.settled_at).toMatch(ISO);
    const balance = await get('/v1/merchant/balance', balanceKey);
    expect(balance.body.balances).toEqual({
      usd_available: settled.amount_asset,
      usd_pending_withdrawal: '0.000000',
      usd_reserved: '0.000000',
    });
    expect(Date.parse(balance.body.updated_at)).toBeGreaterThanOrEqual(
      Date.parse(empty.body.updated_at),
    );

    const gql = await graphql(
      stack.url,
      balanceKey,
      '{ merchant { id balance { usdAvailable usdPendingWithdrawal updatedAt } } }',
    );
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.merchant).toEqual({
      id,
      balance: {
        usdAvailable: settled.amount_asset,
        usdPendingWithdrawal: '0.000000',
        updatedAt: balance.body.updated_at,
      },
    });
  });

  it('simulates reversals over REST: 201, then 200 on a repeat', async () => {
    const throwaway = await newOnramp(key, 'THROWAWAY');
    const account = throwaway.virtual_account.account_number;
    await simulate({ account_number: account, amount_ngn: '3000' });
    const flagged = (await simulate({ account_number: account, amount_ngn: '3000' })).body;
    expect(flagged.status).toBe('FLAGGED');

    const reversed = await reverse(flagged.bank_reference);
    expect(reversed.status).toBe(201);
    expect(Object.keys(reversed.body).sort()).toEqual(DEPOSIT_KEYS);
    expect(reversed.body).toMatchObject({
      deposit_id: flagged.deposit_id,
      status: 'FAILED',
      failure_reason: 'Bank reversed the transfer',
    });
    const again = await reverse(flagged.bank_reference);
    expect(again.status).toBe(200);
    expect(again.body).toEqual(reversed.body);

    for (const [ref, k] of [
      ['NO-SUCH-REFERENCE', key],
      [flagged.bank_reference, otherKey],
    ]) {
      const response = await reverse(ref, k);
      expect(response.status).toBe(404);
      expect(response.body.error.code).toBe('not_found');
    }
    const missing = await request(stack.url, 'POST', '/v1/sandbox/reversals', { key, body: {} });
    expect(missing.status).toBe(400);
    expect(missing.body.error.code).toBe('missing_parameter');
  });

  it('runs the sandbox over GraphQL: simulateDeposit, simulateReversal, setSandboxScenario', async () => {
    const { api_key: sandboxKey } = await createMerchant(databaseUrl, 'Sandboxer');
    const onramp = await newOnramp(sandboxKey);
    const bankReference = reference('GQL');
    const mutation = `mutation($input: SimulateDepositInput!) { simulateDeposit(input: $input) { ${GQL_DEPOSIT} } }`;
    const input = {
      accountNumber: onramp.virtual_account.account_number,
      amountNgn: '3000.5',
      bankReference,
    };
    const created = await graphql(stack.url, sandboxKey, mutation, { input });
    expect(created.body.errors).toBeUndefined();
    const deposit = created.body.data.simulateDeposit;
    expect(deposit).toMatchObject({
      onrampId: onramp.onramp_id,
      amountNgn: '3000.50',
      bankReference,
      rateId: onramp.rate_id,
      failureReason: null,
      flagReason: null,
    });
    expect(deposit.id).toBe(deposit.depositId);
    expect(deposit.amountAsset).toMatch(/^[0-9]+\.[0-9]{6}$/);
    expect(['PENDING_FX', 'SETTLED']).toContain(deposit.status);
    const replay = await graphql(stack.url, sandboxKey, mutation, { input });
    expect(replay.body.data.simulateDeposit.depositId).toBe(deposit.depositId);

    const generated = await graphql(stack.url, sandboxKey, mutation, {
      input: { accountNumber: onramp.virtual_account.account_number, amountNgn: '2000' },
    });
    expect(generated.body.data.simulateDeposit.bankReference).toMatch(/^SBX-[0-9A-Z]{26}$/);

    const bad = await graphql(stack.url, sandboxKey, mutation, {
      input: { accountNumber: onramp.virtual_account.account_number, amountNgn: '1.234' },
    });
    expect(bad.body.errors?.[0]?.extensions?.code).toBe('INVALID_PARAMETER');
    const notTheirs = await graphql(stack.url, otherKey, mutation, {
      input: { accountNumber: onramp.virtual_account.account_number, amountNgn: '2000' },
    });
    expect(notTheirs.body.errors?.[0]?.extensions?.code).toBe('NOT_FOUND');

    const reversal = await graphql(
      stack.url,
      sandboxKey,
      `
        mutation ($ref: String!) {
          simulateReversal(bankReference: $ref) {
            depositId
            status
            failureReason
          }
        }
      `,
      { ref: bankReference },
    );
    expect(reversal.body.errors).toBeUndefined();
    const after = reversal.body.data.simulateReversal;
    expect(after.depositId).toBe(deposit.depositId);
    // Reversed before settlement: FAILED; after: REVERSED (the runner settles in the background).
    expect([
      {
        depositId: deposit.depositId,
        status: 'FAILED',
        failureReason: 'Bank reversed the transfer',
      },
      { depositId: deposit.depositId, status: 'REVERSED', failureReason: null },
    ]).toContainEqual(after);

    const scenario = await graphql(
      stack.url,
      sandboxKey,
      `
        mutation {
          setSandboxScenario(
            input: { fxFailure: PERMANENT, autoDepositNgn: "2500", autoDepositDelaySeconds: 0 }
          ) {
            rateSourceDown
            fxFailure
            autoDepositNgn
            autoDepositDelaySeconds
            updatedAt
          }
        }
      `,
    );
    expect(scenario.body.errors).toBeUndefined();
    expect(scenario.body.data.setSandboxScenario).toEqual({
      rateSourceDown: false,
      fxFailure: 'PERMANENT',
      autoDepositNgn: '2500.00',
      autoDepositDelaySeconds: 0,
      updatedAt: expect.stringMatching(ISO),
    });
    // Auto-simulation: the next onramp receives 2,500 NGN, and the FX venue fails it for good.
    const auto = await newOnramp(sandboxKey);
    const failed = await eventually(async () => {
      const listed = await get(`/v1/deposits?onramp_id=${auto.onramp_id}`, sandboxKey);
      const d = listed.body.deposits?.[0];
      return d && d.status === 'FAILED' ? d : undefined;
    });
    expect(failed).toMatchObject({ amount_ngn: '2500.00', failure_reason: 'FX execution failed' });

    const cleared = await graphql(
      stack.url,
      sandboxKey,
      'mutation { setSandboxScenario(input: { fxFailure: NONE, autoDepositNgn: "0" }) { fxFailure autoDepositNgn autoDepositDelaySeconds } }',
    );
    expect(cleared.body.data.setSandboxScenario).toEqual({
      fxFailure: 'NONE',
      autoDepositNgn: null,
      autoDepositDelaySeconds: 0,
    });
    const invalid = await graphql(
      stack.url,
      sandboxKey,
      'mutation { setSandboxScenario(input: { autoDepositDelaySeconds: -1 }) { fxFailure } }',
    );
    expect(invalid.body.errors?.[0]?.extensions?.code).toBe('INVALID_PARAMETER');
  });
});

describe('deposits API in production', () => {
  let stack: Stack;
  let liveKey: string;
  let providers: Awaited<ReturnType<typeof productionProviders>>;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    providers = await productionProviders();
    const env = { ONRAMP_ENV: 'production', ...providers.env };
    stack = await startStack(databaseUrl, { env, runners: 0 });
    // createMerchant issues a key of the CLI's environment (sandbox); this one is sk_live_.
    ({ api_key: liveKey } = (await onrampCli(
      databaseUrl,
      ['merchants', 'create', '--name', 'Live Co', '--json'],
      env,
    )) as { api_key: string });
    expect(liveKey).toMatch(/^sk_live_/);
  });
  afterAll(async () => {
    await stack?.stop();
    await providers?.stop();
  });

  it('answers the sandbox endpoints and mutations with not_found', async () => {
    for (const [path, body] of [
      ['/v1/sandbox/deposits', { account_number: '0123456789', amount_ngn: '5000' }],
      ['/v1/sandbox/reversals', { bank_reference: 'X' }],
    ] as const) {
      const response = await request(stack.url, 'POST', path, { key: liveKey, body });
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({
        path,
        status: 404,
        code: 'not_found',
      });
    }
    for (const query of [
      'mutation { simulateDeposit(input: { accountNumber: "0123456789", amountNgn: "5000" }) { depositId } }',
      'mutation { simulateReversal(bankReference: "X") { depositId } }',
      'mutation { setSandboxScenario(input: { fxFailure: TEMPORARY }) { fxFailure } }',
    ]) {
      const response = await graphql(stack.url, liveKey, query);
      expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
        query,
        code: 'NOT_FOUND',
      });
    }
  });

  it('serves the deposit reads and the balance', async () => {
    const list = await request(stack.url, 'GET', '/v1/deposits', { key: liveKey });
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      deposits: [],
      pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 },
    });
    const balance = await request(stack.url, 'GET', '/v1/merchant/balance', { key: liveKey });
    expect(balance.status).toBe(200);
    expect(balance.body.balances).toEqual({
      usd_available: '0.000000',
      usd_pending_withdrawal: '0.000000',
      usd_reserved: '0.000000',
    });
  });
});
