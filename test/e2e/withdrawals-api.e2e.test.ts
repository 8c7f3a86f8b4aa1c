import { randomBytes } from 'node:crypto';
import { getAddress } from 'viem';
import { createTestDatabase } from '../support/db';
import { createMerchant, eventually, startStack, type Stack } from '../support/stack';
import { graphql, request, type HttpResponse } from '../support/http';
import { balanceOnramp, freshRate, randomAddress, sandboxTransfer } from '../support/onramps';
import { sql } from '../support/sql';
import { WITHDRAWAL_KEYS } from '../support/rest-objects';

const GQL_WITHDRAWAL = `id withdrawalId amount asset chain destinationAddress status txHash
  createdAt updatedAt`;

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

// USD amounts are compared exactly, in micro-dollars (6 places), never as floats.
const micro = (value: string): bigint => {
  const [whole, fraction = ''] = value.split('.');
  return BigInt(whole) * 1_000_000n + BigInt(fraction.padEnd(6, '0'));
};
const usd = (m: bigint): string =>
  `${m / 1_000_000n}.${(m % 1_000_000n).toString().padStart(6, '0')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

type Withdrawal = Record<string, string | null>;

/** The GraphQL Withdrawal a REST Withdrawal should equal (camelCase, plus `id`). */
function asGraphQL(w: Withdrawal) {
  return {
    id: w.withdrawal_id,
    withdrawalId: w.withdrawal_id,
    amount: w.amount,
    asset: w.asset,
    chain: w.chain,
    destinationAddress: w.destination_address,
    status: w.status,
    txHash: w.tx_hash,
    createdAt: w.created_at,
    updatedAt: w.updated_at,
  };
}

describe('withdrawals API end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let otherKey: string;
  let clientSecret: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    // Two gateways: concurrent withdrawals must be safe across processes, not only within one.
    // A low onramp limit lets one test freeze a merchant the way production does.
    stack = await startStack(databaseUrl, {
      gateways: 2,
      env: { RATE_LIMIT_PER_MINUTE: '100000', ONRAMP_DAILY_LIMIT: '3' },
    });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Acme Stores'));
    ({ api_key: otherKey } = await createMerchant(databaseUrl, 'Other Co'));
    clientSecret = (await fund(key, '200000')).client_secret;
  });
  afterAll(() => stack?.stop());

  const get = (path: string, k = key) => request(stack.url, 'GET', path, { key: k });
  const withdraw = (
    body: unknown,
    k = key,
    headers: Record<string, string> = {},
    url = stack.url,
  ): Promise<HttpResponse> =>
    request(url, 'POST', '/v1/merchant/withdraw', { key: k, body, headers });

  async function balance(k = key): Promise<{ available: string; pending: string }> {
    const read = await get('/v1/merchant/balance', k);
    expect(read.status).toBe(200);
    return {
      available: read.body.balances.usd_available,
      pending: read.body.balances.usd_pending_withdrawal,
    };
  }

  /** Funds a merchant's USD balance: a MERCHANT_BALANCE onramp and a transfer that settles. */
  async function fund(k: string, amountNgn: string) {
    const rate = await freshRate(stack.url, k);
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key: k,
      body: balanceOnramp(rate.rate_id),
    });
    expect(created.status).toBe(201);
    const account = created.body.virtual_account.account_number;
    const deposit = await sandboxTransfer(stack.url, k, account, amountNgn);
    await eventually(async () => {
      const read = await get(`/v1/deposits/${deposit.deposit_id}`, k);
      return read.body.status === 'SETTLED' ? true : undefined;
    });
    return created.body as { onramp_id: string; client_secret: string };
  }

  const body = (overrides: Record<string, unknown> = {}) => ({
    amount: '10',
    asset: 'USDC',
    chain: 'BASE',
    destination_address: randomAddress(),
    ...overrides,
  });

  it('accepts a withdrawal (202, PENDING) and moves the amount from available to pending', async () => {
    const before = await balance();
    expect(micro(before.available)).toBeGreaterThan(20_000_000n);
    const address = randomAddress();
    const accepted = await withdraw(body({ amount: '12.5', destination_address: address }));
    expect(accepted.status).toBe(202);
    const w = accepted.body;
    expect(Object.keys(w).sort()).toEqual(WITHDRAWAL_KEYS);
    expect(w).toEqual({
      withdrawal_id: expect.stringMatching(/^wd_[0-9A-Z]{26}$/),
      amount: '12.500000',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: address,
      status: 'PENDING',
      tx_hash: null,
      created_at: expect.stringMatching(ISO),
      updated_at: expect.stringMatching(ISO),
    });

    const after = await balance();
    expect(after).toEqual({
      available: usd(micro(before.available) - 12_500_000n),
      pending: usd(micro(before.pending) + 12_500_000n),
    });

    // No chain is configured in this stack: the payout waits, so the withdrawal stays PENDING.
    const read = await get(`/v1/merchant/withdrawals/${w.withdrawal_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toEqual(w);
  });

  it('answers ETH as ETHEREUM, checksums a lower-case address and sends USDT', async () => {
    const before = await balance();
    const address = randomAddress();
    const accepted = await withdraw({
      amount: '1.000001',
      asset: 'USDT',
      chain: 'ETH',
      destination_address: address.toLowerCase(),
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({
      amount: '1.000001',
      asset: 'USDT',
      chain: 'ETHEREUM',
      destination_address: getAddress(address),
      status: 'PENDING',
    });
    expect((await balance()).available).toBe(usd(micro(before.available) - 1_000_001n));
  });

  it('refuses invalid requests with the API error codes and leaves the balance alone', async () => {
    const before = await balance();
    const valid = body();
    const withoutField = (field: string) =>
      Object.fromEntries(Object.entries(valid).filter(([name]) => name !== field));
    const mixedCase = randomAddress();
    // Swap the case of one letter: still mixed case, but the EIP-55 checksum no longer holds.
    const letter = mixedCase.slice(2).search(/[a-fA-F]/) + 2;
    const badChecksum =
      mixedCase.slice(0, letter) +
      (mixedCase[letter] === mixedCase[letter].toUpperCase()
        ? mixedCase[letter].toLowerCase()
        : mixedCase[letter].toUpperCase()) +
      mixedCase.slice(letter + 1);
    const cases: Array<[unknown, number, string]> = [
      [withoutField('amount'), 400, 'missing_parameter'],
      [withoutField('asset'), 400, 'missing_parameter'],
      [withoutField('chain'), 400, 'missing_parameter'],
      [withoutField('destination_address'), 400, 'missing_parameter'],
      [{}, 400, 'missing_parameter'],
      [{ ...valid, amount: 'abc' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: '-1' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: '1.1234567' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: '0' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: '0.999999' }, 400, 'invalid_parameter'], // below WITHDRAWAL_MIN_USD
      [{ ...valid, amount: '' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: '1e3' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: 10 }, 400, 'invalid_parameter'], // a number, not a decimal string
      [{ ...valid, amount: null }, 400, 'invalid_parameter'],
      [{ ...valid, asset: 'DAI' }, 400, 'invalid_parameter'],
      [{ ...valid, asset: 'USD' }, 400, 'invalid_parameter'],
      [{ ...valid, asset: 'usdc' }, 400, 'invalid_parameter'],
      [{ ...valid, chain: 'SOLANA' }, 400, 'invalid_parameter'],
      [{ ...valid, chain: 'eth' }, 400, 'invalid_parameter'],
      [{ ...valid, destination_address: '0x1234' }, 422, 'invalid_address'],
      [{ ...valid, destination_address: 'not an address' }, 422, 'invalid_address'],
      [{ ...valid, destination_address: `0x${'0'.repeat(40)}` }, 422, 'invalid_address'],
      [{ ...valid, destination_address: badChecksum }, 422, 'invalid_address'],
      [{ ...valid, memo: 'rent' }, 400, 'invalid_parameter'],
      [{ ...valid, amount: '1'.repeat(41) }, 400, 'invalid_parameter'],
    ];
    for (const [payload, status, code] of cases) {
      const response = await withdraw(payload);
      expect({ payload, status: response.status, code: response.body.error?.code }).toEqual({
        payload,
        status,
        code,
      });
    }
    // The message names the missing field.
    const missing = await withdraw(withoutField('destination_address'));
    expect(missing.body.error.message).toContain('destination_address');
    const malformed = await request(stack.url, 'POST', '/v1/merchant/withdraw', {
      key,
      rawBody: '{"amount": "10",',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_parameter');

    expect(await balance()).toEqual(before);
  });

  it('refuses a withdrawal above usd_available with 422 insufficient_balance', async () => {
    const before = await balance();
    const over = await withdraw(body({ amount: usd(micro(before.available) + 1n) }));
    expect(over.status).toBe(422);
    expect(over.body).toEqual({
      error: { code: 'insufficient_balance', message: expect.any(String) },
    });
    expect(over.headers.get('x-request-id')).toBeTruthy();
    expect(await balance()).toEqual(before);

    const { api_key: emptyKey } = await createMerchant(databaseUrl, 'Empty Co');
    const empty = await withdraw(body({ amount: '1' }), emptyKey);
    expect(empty.status).toBe(422);
    expect(empty.body.error.code).toBe('insufficient_balance');
  });

  it('refuses a frozen merchant with 403 merchant_frozen', async () => {
    const { api_key: frozenKey } = await createMerchant(databaseUrl, 'Frozen Co');
    const rate = await freshRate(stack.url, frozenKey);
    // ONRAMP_DAILY_LIMIT is 3 in this stack: the 4th creation of the day freezes the merchant.
    const statuses: number[] = [];
    for (let i = 0; i < 4; i += 1) {
      const created = await request(stack.url, 'POST', '/v1/onramp', {
        key: frozenKey,
        body: balanceOnramp(rate.rate_id),
      });
      statuses.push(created.status);
    }
    expect(statuses).toEqual([201, 201, 201, 403]);
    const refused = await withdraw(body({ amount: '1' }), frozenKey);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('merchant_frozen');
  });

  it('replays an Idempotency-Key: the same withdrawal, Idempotent-Replayed, one debit', async () => {
    const before = await balance();
    const headers = { 'Idempotency-Key': `wd-${randomBytes(8).toString('hex')}` };
    const payload = body({ amount: '2.25' });
    const first = await withdraw(payload, key, headers);
    expect(first.status).toBe(202);
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    // The replay may reach the other gateway process: the stored response is shared.
    const replay = await withdraw(payload, key, headers, stack.gateways[1].url);
    expect(replay.status).toBe(202);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    const conflict = await withdraw({ ...payload, amount: '3' }, key, headers);
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe('idempotency_conflict');

    expect(await balance()).toEqual({
      available: usd(micro(before.available) - 2_250_000n),
      pending: usd(micro(before.pending) + 2_250_000n),
    });
    const rows = await sql(databaseUrl, 'select id from withdrawals where id = $1', [
      first.body.withdrawal_id,
    ]);
    expect(rows).toHaveLength(1);
  });

  it('accepts exactly as many of 20 concurrent withdrawals as the balance covers', async () => {
    const { api_key: raceKey, merchant_id: raceMerchant } = await createMerchant(
      databaseUrl,
      'Race Co',
    );
    await fund(raceKey, '50000'); // about 32 USD at the sandbox's ~1,545 NGN per USD
    const funded = await balance(raceKey);
    // Withdraw the odd remainder first so what is left covers exactly 10 x 2.5 USD.
    const each = 2_500_000n;
    const remainder = micro(funded.available) - 10n * each;
    expect(remainder).toBeGreaterThanOrEqual(1_000_000n); // WITHDRAWAL_MIN_USD
    expect((await withdraw(body({ amount: usd(remainder) }), raceKey)).status).toBe(202);
    expect((await balance(raceKey)).available).toBe(usd(10n * each));

    // Spread over both gateways; half carry distinct Idempotency-Keys, half none.
    const responses = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        withdraw(
          body({ amount: usd(each) }),
          raceKey,
          i % 2 === 0 ? { 'Idempotency-Key': `race-${i}-${randomBytes(4).toString('hex')}` } : {},
          stack.gateways[i % stack.gateways.length].url,
        ),
      ),
    );
    const statuses = responses.map((r) => r.status);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    expect(statuses.filter((s) => s === 202)).toHaveLength(10);
    expect(statuses.filter((s) => s === 422)).toHaveLength(10);
    for (const refused of responses.filter((r) => r.status === 422)) {
      expect(refused.body.error.code).toBe('insufficient_balance');
    }
    const accepted = responses.filter((r) => r.status === 202).map((r) => r.body);
    expect(new Set(accepted.map((w) => w.withdrawal_id)).size).toBe(10);
    for (const w of accepted) expect(w).toMatchObject({ amount: '2.500000', status: 'PENDING' });

    expect(await balance(raceKey)).toEqual({
      available: '0.000000',
      pending: usd(remainder + 10n * each),
    });
    const listed = await get('/v1/merchant/withdrawals?per_page=100', raceKey);
    expect(listed.body.pagination.total).toBe(11);
    const payouts = await sql<{ count: string }>(
      databaseUrl,
      'select count(*)::text as count from payouts where merchant_id = $1 and withdrawal_id is not null',
      [raceMerchant],
    );
    expect(payouts[0].count).toBe('11');
  });

  describe('reading', () => {
    let listKey: string;
    /** The three withdrawals, newest first, as the API lists them. */
    let all: Withdrawal[];

    beforeAll(async () => {
      ({ api_key: listKey } = await createMerchant(databaseUrl, 'Lister'));
      await fund(listKey, '50000');
      for (const amount of ['1.1', '2.2', '3.3']) {
        const response = await withdraw(body({ amount }), listKey);
        expect(response.status).toBe(202);
        await sleep(5); // distinct created_at values
      }
      const listed = await get('/v1/merchant/withdrawals?per_page=100', listKey);
      expect(listed.status).toBe(200);
      all = listed.body.withdrawals;
    });

    const ids = (ws: Withdrawal[]) => ws.map((w) => w.withdrawal_id);

    it('lists newest first with the pagination object of the spec', async () => {
      expect(all.map((w) => w.amount)).toEqual(['3.300000', '2.200000', '1.100000']);
      for (const w of all) expect(Object.keys(w).sort()).toEqual(WITHDRAWAL_KEYS);

      const page1 = await get('/v1/merchant/withdrawals?per_page=2', listKey);
      expect(page1.body.pagination).toEqual({ total: 3, page: 1, per_page: 2, total_pages: 2 });
      const page2 = await get('/v1/merchant/withdrawals?per_page=2&page=2', listKey);
      expect(page2.body.pagination).toEqual({ total: 3, page: 2, per_page: 2, total_pages: 2 });
      expect([...ids(page1.body.withdrawals), ...ids(page2.body.withdrawals)]).toEqual(ids(all));
      const past = await get('/v1/merchant/withdrawals?per_page=2&page=3', listKey);
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        withdrawals: [],
        pagination: { total: 3, page: 3, per_page: 2, total_pages: 2 },
      });
      const defaults = await get('/v1/merchant/withdrawals', listKey);
      expect(defaults.body.pagination).toEqual({ total: 3, page: 1, per_page: 20, total_pages: 1 });

      for (const query of ['per_page=101', 'per_page=0', 'page=0', 'page=abc']) {
        const response = await get(`/v1/merchant/withdrawals?${query}`, listKey);
        expect({ query, status: response.status, code: response.body.error?.code }).toEqual({
          query,
          status: 400,
          code: 'invalid_parameter',
        });
      }
    });

    it('hides other merchants: 404 over REST, null over GraphQL', async () => {
      const theirs = all[0].withdrawal_id!;
      for (const id of [theirs, 'wd_01JUNKNOWNUNKNOWNUNKNOWN00', 'nope']) {
        const rest = await get(`/v1/merchant/withdrawals/${id}`, otherKey);
        expect({ id, status: rest.status, code: rest.body.error?.code }).toEqual({
          id,
          status: 404,
          code: 'not_found',
        });
      }
      const gql = await graphql(
        stack.url,
        otherKey,
        `{ withdrawal(id: "${theirs}") { withdrawalId } }`,
      );
      expect(gql.body.errors).toBeUndefined();
      expect(gql.body.data.withdrawal).toBeNull();
      const listed = await get('/v1/merchant/withdrawals', otherKey);
      expect(listed.body).toEqual({
        withdrawals: [],
        pagination: { total: 0, page: 1, per_page: 20, total_pages: 0 },
      });
      const gqlList = await graphql(stack.url, otherKey, '{ withdrawals { totalCount } }');
      expect(gqlList.body.data.withdrawals.totalCount).toBe(0);
    });

    it('reads withdrawals over GraphQL: withdrawal(id) and a cursor-paged connection', async () => {
      const one = await graphql(
        stack.url,
        listKey,
        `{ withdrawal(id: "${all[1].withdrawal_id}") { ${GQL_WITHDRAWAL} } }`,
      );
      expect(one.body.errors).toBeUndefined();
      expect(one.body.data.withdrawal).toEqual(asGraphQL(all[1]));

      const seen: Array<ReturnType<typeof asGraphQL>> = [];
      let after: string | null = null;
      let pages = 0;
      for (;;) {
        const response: HttpResponse = await graphql(
          stack.url,
          listKey,
          `query($after: String) { withdrawals(first: 2, after: $after) {
            totalCount pageInfo { hasNextPage hasPreviousPage endCursor }
            edges { cursor node { ${GQL_WITHDRAWAL} } } } }`,
          { after },
        );
        expect(response.body.errors).toBeUndefined();
        const connection = response.body.data.withdrawals;
        expect(connection.totalCount).toBe(3);
        expect(connection.pageInfo.hasPreviousPage).toBe(after !== null);
        for (const edge of connection.edges) seen.push(edge.node);
        pages += 1;
        if (!connection.pageInfo.hasNextPage) break;
        after = connection.pageInfo.endCursor;
      }
      expect(pages).toBe(2);
      expect(seen).toEqual(all.map(asGraphQL));

      for (const query of [
        '{ withdrawals(first: 101) { totalCount } }',
        '{ withdrawals(first: 0) { totalCount } }',
        '{ withdrawals(after: "nonsense") { totalCount } }',
      ]) {
        const response = await graphql(stack.url, listKey, query);
        expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
          query,
          code: 'INVALID_PARAMETER',
        });
      }
    });

    it('refuses client secrets: 403 forbidden over REST, FORBIDDEN over GraphQL', async () => {
      const id = all[0].withdrawal_id;
      for (const [method, path, payload] of [
        ['POST', '/v1/merchant/withdraw', body({ amount: '1' })],
        ['GET', '/v1/merchant/withdrawals', undefined],
        ['GET', `/v1/merchant/withdrawals/${id}`, undefined],
      ] as const) {
        const response = await request(stack.url, method, path, {
          key: clientSecret,
          body: payload,
        });
        expect({ path, status: response.status, code: response.body.error?.code }).toEqual({
          path,
          status: 403,
          code: 'forbidden',
        });
      }
      for (const query of [
        `{ withdrawal(id: "${id}") { withdrawalId } }`,
        '{ withdrawals { totalCount } }',
        `mutation { withdraw(input: { amount: "1", asset: "USDC", chain: "BASE", destinationAddress: "${randomAddress()}" }) { withdrawalId } }`,
      ]) {
        const response = await graphql(stack.url, clientSecret, query);
        expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
          query,
          code: 'FORBIDDEN',
        });
      }
    });
  });

  it('withdraws over GraphQL, with the same error codes in extensions.code', async () => {
    const mutation = `mutation($input: WithdrawInput!) { withdraw(input: $input) { ${GQL_WITHDRAWAL} } }`;
    const balanceQuery = '{ merchant { balance { usdAvailable usdPendingWithdrawal } } }';
    const before = (await graphql(stack.url, key, balanceQuery)).body.data.merchant.balance;
    const address = randomAddress();
    const done = await graphql(stack.url, key, mutation, {
      input: { amount: '4.75', asset: 'USDT', chain: 'POLYGON', destinationAddress: address },
    });
    expect(done.body.errors).toBeUndefined();
    const w = done.body.data.withdraw;
    expect(w).toEqual({
      id: expect.stringMatching(/^wd_/),
      withdrawalId: w.id,
      amount: '4.750000',
      asset: 'USDT',
      chain: 'POLYGON',
      destinationAddress: address,
      status: 'PENDING',
      txHash: null,
      createdAt: expect.stringMatching(ISO),
      updatedAt: expect.stringMatching(ISO),
    });
    const after = (await graphql(stack.url, key, balanceQuery)).body.data.merchant.balance;
    expect(after).toEqual({
      usdAvailable: usd(micro(before.usdAvailable) - 4_750_000n),
      usdPendingWithdrawal: usd(micro(before.usdPendingWithdrawal) + 4_750_000n),
    });
    const rest = await get(`/v1/merchant/withdrawals/${w.withdrawalId}`);
    expect(asGraphQL(rest.body)).toEqual(w);

    const valid = { amount: '1', asset: 'USDC', chain: 'BASE', destinationAddress: address };
    for (const [input, code] of [
      [{ ...valid, amount: usd(micro(after.usdAvailable) + 1n) }, 'INSUFFICIENT_BALANCE'],
      [{ ...valid, amount: 'abc' }, 'INVALID_PARAMETER'],
      [{ ...valid, amount: '0' }, 'INVALID_PARAMETER'],
      [{ ...valid, asset: 'DAI' }, 'INVALID_PARAMETER'],
      [{ ...valid, chain: 'SOLANA' }, 'INVALID_PARAMETER'],
      [{ ...valid, destinationAddress: '0x1234' }, 'INVALID_ADDRESS'],
      // A missing non-null field fails GraphQL's own validation, before any resolver.
      [{ amount: '1', asset: 'USDC', chain: 'BASE' }, 'INVALID_PARAMETER'],
    ] as const) {
      const response = await graphql(stack.url, key, mutation, { input });
      expect({ input, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
        input,
        code,
      });
    }
    const alias = await graphql(stack.url, key, mutation, { input: { ...valid, chain: 'ETH' } });
    expect(alias.body.data.withdraw.chain).toBe('ETHEREUM');
  });

  it('lists the withdrawal routes in the OpenAPI document', async () => {
    const doc = (await request(stack.url, 'GET', '/v1/openapi.json')).body;
    expect(Object.keys(doc.paths['/v1/merchant/withdraw'].post.responses)).toEqual(
      expect.arrayContaining(['202', '400', '401', '403', '409', '413', '422', '429']),
    );
    expect(doc.paths['/v1/merchant/withdrawals'].get).toBeDefined();
    expect(Object.keys(doc.paths['/v1/merchant/withdrawals/{id}'].get.responses)).toContain('404');
  });
});
