import { createTestDatabase } from '../support/db';
import { createMerchant, startStack, type Stack } from '../support/stack';
import { graphql, request } from '../support/http';
import { autoWithdrawOnramp, balanceOnramp, freshRate, randomAddress } from '../support/onramps';

/** NUBAN check digit, written out independently of src/ (CBN weights 3,7,3,3,7,3,3,7,3,3,7,3). */
function validNuban(bankCode: string, account: string): boolean {
  const digits = `${bankCode}${account.slice(0, 9)}`.split('').map(Number);
  const weights = [3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3];
  const sum = digits.reduce((acc, d, i) => acc + d * weights[i], 0);
  return (10 - (sum % 10)) % 10 === Number(account[9]);
}

describe('onramps end to end', () => {
  let stack: Stack;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    const databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key } = await createMerchant(databaseUrl, 'Acme Stores'));
    ({ api_key: otherKey } = await createMerchant(databaseUrl, 'Other Co'));
  });
  afterAll(() => stack?.stop());

  const post = (body: unknown, k = key, headers: Record<string, string> = {}) =>
    request(stack.url, 'POST', '/v1/onramp', { key: k, body, headers });

  it('creates each type through REST with the fields of the spec and API.md', async () => {
    const rate = await freshRate(stack.url, key);
    const before = Date.now();
    const throwaway = await post(autoWithdrawOnramp(rate.rate_id, { chain: 'ETH' }));
    expect(throwaway.status).toBe(201);
    const o = throwaway.body;
    expect(o).toMatchObject({
      type: 'THROWAWAY',
      status: 'ACTIVE',
      rate_id: rate.rate_id,
      user: { email: 'ada@example.com' },
    });
    expect(o.onramp_id).toMatch(/^onr_/);
    expect(o.client_secret).toMatch(/^oc_[A-Za-z0-9]{20,}$/);
    expect(o.payment_reference).toMatch(/^PAY[0-9A-Z]{12}$/);
    expect(o.virtual_account).toMatchObject({
      bank_name: 'Wema Bank',
      bank_code: '035',
      account_name: 'Acme Stores Checkout',
    });
    expect(o.virtual_account.account_number).toMatch(/^[0-9]{10}$/);
    expect(validNuban('035', o.virtual_account.account_number)).toBe(true);
    expect(o.settlement).toEqual({
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'ETHEREUM',
      destination_address: expect.any(String),
    });
    const ttl = Date.parse(o.expires_at) - Date.parse(o.created_at);
    expect(ttl).toBe(1500 * 1000);
    expect(Date.parse(o.created_at)).toBeGreaterThanOrEqual(before - 2000);

    const ephemeral = await post(balanceOnramp(rate.rate_id));
    expect(ephemeral.status).toBe(201);
    expect(ephemeral.body.settlement).toEqual({ mode: 'MERCHANT_BALANCE' });

    const permanent = await post({
      type: 'PERMANENT',
      user: { email: 'p@example.com' },
      settlement: { mode: 'MERCHANT_BALANCE' },
    });
    expect(permanent.status).toBe(201);
    expect(permanent.body).toMatchObject({
      type: 'PERMANENT',
      rate_id: null,
      expires_at: null,
      status: 'ACTIVE',
    });

    const numbers = [o, ephemeral.body, permanent.body].map(
      (x) => x.virtual_account.account_number,
    );
    expect(new Set(numbers).size).toBe(3);

    const read = await request(stack.url, 'GET', `/v1/onramp/${o.onramp_id}`, { key });
    expect(read.status).toBe(200);
    const { client_secret: _secret, ...withoutSecret } = o;
    expect(read.body).toEqual(withoutSecret);
    expect(read.body.client_secret).toBeUndefined();
  });

  it('creates through GraphQL with the same rules', async () => {
    const rate = await freshRate(stack.url, key, 'USDT');
    const address = randomAddress();
    const created = await graphql(
      stack.url,
      key,
      `
        mutation ($input: CreateOnrampInput!) {
          createOnramp(input: $input) {
            onrampId
            type
            status
            rateId
            clientSecret
            paymentReference
            expiresAt
            virtualAccount {
              accountNumber
              bankCode
            }
            settlement {
              mode
              asset
              chain
              destinationAddress
            }
            onramp {
              onrampId
            }
          }
        }
      `,
      {
        input: {
          type: 'EPHEMERAL',
          user: { email: 'g@example.com' },
          rateId: rate.rate_id,
          settlement: {
            mode: 'AUTO_WITHDRAW',
            asset: 'USDT',
            chain: 'POLYGON',
            destinationAddress: address,
          },
        },
      },
    );
    expect(created.body.errors).toBeUndefined();
    const o = created.body.data.createOnramp;
    expect(o).toMatchObject({
      type: 'EPHEMERAL',
      status: 'ACTIVE',
      rateId: rate.rate_id,
      settlement: {
        mode: 'AUTO_WITHDRAW',
        asset: 'USDT',
        chain: 'POLYGON',
        destinationAddress: address,
      },
    });
    expect(o.onramp.onrampId).toBe(o.onrampId);
    expect(o.clientSecret).toMatch(/^oc_/);

    const read = await graphql(
      stack.url,
      key,
      `{ onramp(id: "${o.onrampId}") { onrampId status virtualAccount { accountNumber } } }`,
    );
    expect(read.body.data.onramp).toEqual({
      onrampId: o.onrampId,
      status: 'ACTIVE',
      virtualAccount: o.virtualAccount && { accountNumber: o.virtualAccount.accountNumber },
    });

    const bad = await graphql(
      stack.url,
      key,
      `mutation { createOnramp(input: { type: THROWAWAY, user: { email: "x@example.com" }, rateId: "${rate.rate_id}",
      settlement: { mode: AUTO_WITHDRAW, asset: USDT, chain: "BASE", destinationAddress: "0x0000000000000000000000000000000000000000" } }) { onrampId } }`,
    );
    expect(bad.body.errors?.[0].extensions?.code).toBe('INVALID_ADDRESS');
  });

  it('refuses each invalid field with a clear code', async () => {
    const rate = await freshRate(stack.url, key);
    const valid = autoWithdrawOnramp(rate.rate_id);
    const cases: Array<[string, unknown, number, string]> = [
      ['no type', { ...valid, type: undefined }, 400, 'missing_parameter'],
      ['bad type', { ...valid, type: 'FOREVER' }, 400, 'invalid_parameter'],
      ['no user', { ...valid, user: undefined }, 400, 'missing_parameter'],
      ['no email', { ...valid, user: {} }, 400, 'missing_parameter'],
      ['bad email', { ...valid, user: { email: 'not-an-email' } }, 400, 'invalid_parameter'],
      ['email not a string', { ...valid, user: { email: 42 } }, 400, 'invalid_parameter'],
      ['no rate_id', { ...valid, rate_id: undefined }, 400, 'missing_parameter'],
      ['rate_id on PERMANENT', { ...valid, type: 'PERMANENT' }, 400, 'invalid_parameter'],
      ['unknown rate_id', { ...valid, rate_id: 'rate_nope' }, 422, 'rate_not_found'],
      ['no settlement', { ...valid, settlement: undefined }, 400, 'missing_parameter'],
      ['bad mode', { ...valid, settlement: { mode: 'CASH' } }, 400, 'invalid_parameter'],
      [
        'no asset',
        { ...valid, settlement: { ...valid.settlement, asset: undefined } },
        400,
        'missing_parameter',
      ],
      [
        'bad asset',
        { ...valid, settlement: { ...valid.settlement, asset: 'DAI' } },
        400,
        'invalid_parameter',
      ],
      [
        'asset not the rate asset',
        { ...valid, settlement: { ...valid.settlement, asset: 'USDT' } },
        400,
        'invalid_parameter',
      ],
      [
        'no chain',
        { ...valid, settlement: { ...valid.settlement, chain: undefined } },
        400,
        'missing_parameter',
      ],
      [
        'bad chain',
        { ...valid, settlement: { ...valid.settlement, chain: 'SOLANA' } },
        400,
        'invalid_parameter',
      ],
      [
        'no address',
        { ...valid, settlement: { ...valid.settlement, destination_address: undefined } },
        400,
        'missing_parameter',
      ],
      ['unknown field', { ...valid, colour: 'blue' }, 400, 'invalid_parameter'],
      [
        'unknown settlement field',
        { ...valid, settlement: { ...valid.settlement, memo: 'x' } },
        400,
        'invalid_parameter',
      ],
      [
        'balance with asset',
        { ...valid, settlement: { mode: 'MERCHANT_BALANCE', asset: 'USDC' } },
        400,
        'invalid_parameter',
      ],
      [
        'balance with chain',
        { ...valid, settlement: { mode: 'MERCHANT_BALANCE', chain: 'BASE' } },
        400,
        'invalid_parameter',
      ],
      [
        'balance with address',
        {
          ...valid,
          settlement: { mode: 'MERCHANT_BALANCE', destination_address: randomAddress() },
        },
        400,
        'invalid_parameter',
      ],
      ['body is an array', [valid], 400, 'invalid_parameter'],
    ];
    for (const [label, body, status, code] of cases) {
      const response = await post(body);
      expect({ label, status: response.status, code: response.body.error?.code }).toEqual({
        label,
        status,
        code,
      });
      expect(typeof response.body.error.message).toBe('string');
    }
    const malformed = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      rawBody: '{"type": "THROW',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('invalid_parameter');
    const huge = await post({ ...valid, user: { email: `${'a'.repeat(70_000)}@example.com` } });
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
  });

  it('refuses every bad address form with invalid_address', async () => {
    const rate = await freshRate(stack.url, key);
    const good = randomAddress();
    const lower = good.toLowerCase();
    const badChecksum =
      good.slice(0, 2) +
      [...good.slice(2)]
        .map((c) => (/[a-f]/.test(c) ? c.toUpperCase() : /[A-F]/.test(c) ? c.toLowerCase() : c))
        .join('');
    const forms = [
      ['zero address', '0x0000000000000000000000000000000000000000'],
      ['too short', good.slice(0, 41)],
      ['too long', `${good}0`],
      ['no 0x', good.slice(2)],
      ['not hex', `0x${'g'.repeat(40)}`],
      ['bad checksum', badChecksum],
      ['empty-ish', '0x'],
      ['spaces', ` ${good}`],
    ];
    for (const [label, address] of forms) {
      const response = await post(
        autoWithdrawOnramp(rate.rate_id, { destination_address: address }),
      );
      expect({ label, status: response.status, code: response.body.error?.code }).toEqual({
        label,
        status: 422,
        code: 'invalid_address',
      });
    }
    for (const address of [lower, good, good.toUpperCase().replace('0X', '0x')]) {
      const response = await post(
        autoWithdrawOnramp(rate.rate_id, { destination_address: address }),
      );
      expect(response.status).toBe(201);
      expect(response.body.settlement.destination_address).toBe(good);
    }
  });

  it('keeps merchants apart: another merchant’s onramp is 404 and null', async () => {
    const rate = await freshRate(stack.url, key);
    const mine = (await post(balanceOnramp(rate.rate_id))).body;
    const rest = await request(stack.url, 'GET', `/v1/onramp/${mine.onramp_id}`, { key: otherKey });
    expect(rest.status).toBe(404);
    expect(rest.body.error.code).toBe('not_found');
    expect((await request(stack.url, 'GET', '/v1/onramp/onr_unknown', { key })).status).toBe(404);
    const gql = await graphql(
      stack.url,
      otherKey,
      `{ onramp(id: "${mine.onramp_id}") { onrampId } }`,
    );
    expect(gql.body.data.onramp).toBeNull();
    const deactivate = await request(stack.url, 'POST', `/v1/onramp/${mine.onramp_id}/deactivate`, {
      key: otherKey,
    });
    expect(deactivate.status).toBe(404);
    const theirs = await request(stack.url, 'GET', '/v1/onramps', { key: otherKey });
    expect(theirs.body.onramps.map((o: { onramp_id: string }) => o.onramp_id)).not.toContain(
      mine.onramp_id,
    );
  });

  it('lets a client secret read its own onramp and nothing else (403)', async () => {
    const rate = await freshRate(stack.url, key);
    const mine = (await post(balanceOnramp(rate.rate_id))).body;
    const other = (await post(balanceOnramp(rate.rate_id))).body;
    const secret = mine.client_secret;
    const own = await request(stack.url, 'GET', `/v1/onramp/${mine.onramp_id}`, { key: secret });
    expect(own.status).toBe(200);
    expect(own.body.onramp_id).toBe(mine.onramp_id);
    const ownGql = await graphql(
      stack.url,
      secret,
      `{ onramp(id: "${mine.onramp_id}") { onrampId status } }`,
    );
    expect(ownGql.body.data.onramp).toEqual({ onrampId: mine.onramp_id, status: 'ACTIVE' });

    const forbiddenRest: Array<[string, string, unknown?]> = [
      ['GET', `/v1/onramp/${other.onramp_id}`],
      ['GET', '/v1/onramps'],
      ['GET', '/v1/rates?from=NGN'],
      ['POST', '/v1/onramp', balanceOnramp(rate.rate_id)],
      ['POST', `/v1/onramp/${mine.onramp_id}/deactivate`],
    ];
    for (const [method, path, body] of forbiddenRest) {
      const response = await request(stack.url, method, path, { key: secret, body });
      expect({ path, status: response.status, code: response.body.error?.code }).toEqual({
        path,
        status: 403,
        code: 'forbidden',
      });
    }
    for (const query of [
      `{ onramp(id: "${other.onramp_id}") { onrampId } }`,
      '{ onramps { totalCount } }',
      '{ merchant { id } }',
      '{ rate(from: "NGN") { rateId } }',
      'mutation { setSandboxScenario(input: { rateSourceDown: false }) { rateSourceDown } }',
    ]) {
      const response = await graphql(stack.url, secret, query);
      expect({ query, code: response.body.errors?.[0]?.extensions?.code }).toEqual({
        query,
        code: 'FORBIDDEN',
      });
    }
  });

  it('lists onramps newest first with pagination (REST) and a Relay connection (GraphQL)', async () => {
    const rate = await freshRate(stack.url, otherKey);
    const ids: string[] = [];
    for (let i = 0; i < 5; i += 1)
      ids.push((await post(balanceOnramp(rate.rate_id), otherKey)).body.onramp_id);
    const page1 = await request(stack.url, 'GET', '/v1/onramps?per_page=2', { key: otherKey });
    expect(page1.body.pagination).toEqual({ total: 5, page: 1, per_page: 2, total_pages: 3 });
    expect(page1.body.onramps.map((o: { onramp_id: string }) => o.onramp_id)).toEqual([
      ids[4],
      ids[3],
    ]);
    const page3 = await request(stack.url, 'GET', '/v1/onramps?per_page=2&page=3', {
      key: otherKey,
    });
    expect(page3.body.onramps.map((o: { onramp_id: string }) => o.onramp_id)).toEqual([ids[0]]);
    const past = await request(stack.url, 'GET', '/v1/onramps?per_page=2&page=9', {
      key: otherKey,
    });
    expect(past.body).toEqual({
      onramps: [],
      pagination: { total: 5, page: 9, per_page: 2, total_pages: 3 },
    });
    for (const bad of ['per_page=101', 'per_page=0', 'page=0', 'page=abc']) {
      const response = await request(stack.url, 'GET', `/v1/onramps?${bad}`, { key: otherKey });
      expect({ bad, status: response.status, code: response.body.error?.code }).toEqual({
        bad,
        status: 400,
        code: 'invalid_parameter',
      });
    }

    const first = await graphql(
      stack.url,
      otherKey,
      '{ onramps(first: 3) { totalCount edges { cursor node { onrampId } } pageInfo { hasNextPage endCursor } } }',
    );
    const conn = first.body.data.onramps;
    expect(conn.totalCount).toBe(5);
    expect(conn.edges.map((e: { node: { onrampId: string } }) => e.node.onrampId)).toEqual([
      ids[4],
      ids[3],
      ids[2],
    ]);
    expect(conn.pageInfo.hasNextPage).toBe(true);
    const next = await graphql(
      stack.url,
      otherKey,
      `{ onramps(first: 3, after: "${conn.pageInfo.endCursor}") { edges { node { onrampId } } pageInfo { hasNextPage } } }`,
    );
    expect(
      next.body.data.onramps.edges.map((e: { node: { onrampId: string } }) => e.node.onrampId),
    ).toEqual([ids[1], ids[0]]);
    expect(next.body.data.onramps.pageInfo.hasNextPage).toBe(false);
    const badCursor = await graphql(
      stack.url,
      otherKey,
      '{ onramps(after: "garbage") { totalCount } }',
    );
    expect(badCursor.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
  });

  it('deactivates PERMANENT onramps only', async () => {
    const rate = await freshRate(stack.url, key);
    const permanent = (
      await post({
        type: 'PERMANENT',
        user: { email: 'p@example.com' },
        settlement: {
          mode: 'AUTO_WITHDRAW',
          asset: 'USDC',
          chain: 'BASE',
          destination_address: randomAddress(),
        },
      })
    ).body;
    const done = await request(stack.url, 'POST', `/v1/onramp/${permanent.onramp_id}/deactivate`, {
      key,
    });
    expect(done.status).toBe(200);
    expect(done.body.status).toBe('DEACTIVATED');
    const again = await request(stack.url, 'POST', `/v1/onramp/${permanent.onramp_id}/deactivate`, {
      key,
    });
    expect(again.body.status).toBe('DEACTIVATED');
    const gql = await graphql(
      stack.url,
      key,
      `mutation { deactivateOnramp(id: "${permanent.onramp_id}") { status } }`,
    );
    expect(gql.body.data.deactivateOnramp.status).toBe('DEACTIVATED');
    const throwaway = (await post(balanceOnramp(rate.rate_id, 'THROWAWAY'))).body;
    const refused = await request(
      stack.url,
      'POST',
      `/v1/onramp/${throwaway.onramp_id}/deactivate`,
      { key },
    );
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('invalid_parameter');
  });
});
