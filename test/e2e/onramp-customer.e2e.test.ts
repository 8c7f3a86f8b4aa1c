import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { freshRate } from '../support/onramps';
import { createMerchant, startStack, type Stack } from '../support/stack';
import { sql } from '../support/sql';

/**
 * The onramp's optional `customer` record (API.md "Real providers") through both transports:
 * stored sealed, shown back as which fields were given and an identity number's last 4 digits
 * only; hostile input is a 400 in the error shape and creates nothing.
 */
const BVN = '22212345678';
const NIN = '70123456789';
const PHONE = '+2348031234567';
/** Everything of the record that must never come back, nor sit in clear in the database. */
const PRIVATE = [BVN, NIN, '2348031234567', '8031234567', 'Adaeze', 'Okafor'];

const permanent = (customer?: unknown) => ({
  type: 'PERMANENT',
  user: { email: 'ada@example.com' },
  settlement: { mode: 'MERCHANT_BALANCE' },
  ...(customer === undefined ? {} : { customer }),
});

const CREATE = `mutation ($input: CreateOnrampInput!) {
  createOnramp(input: $input) { onrampId customer { fields bvnLast4 ninLast4 } }
}`;

describe('the onramp customer record end to end', () => {
  let stack: Stack;
  let databaseUrl: string;
  let key: string;
  let merchantId: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, { env: { RATE_LIMIT_PER_MINUTE: '100000' } });
    ({ api_key: key, merchant_id: merchantId } = await createMerchant(databaseUrl, 'Customer Co'));
    // PERMANENT onramps need a current rate to exist.
    await freshRate(stack.url, key);
  });
  afterAll(() => stack?.stop());

  const onrampCount = async () =>
    (
      await sql<{ n: number }>(
        databaseUrl,
        'select count(*)::int as n from onramps where merchant_id = $1',
        [merchantId],
      )
    )[0].n;
  const storedCustomer = async (onrampId: string) =>
    (
      await sql<{ customer_sealed: string | null; customer_fields: string[] | null }>(
        databaseUrl,
        'select customer_sealed, customer_fields from onramps where id = $1',
        [onrampId],
      )
    )[0];
  const expectNothingPrivate = (text: string) => {
    for (const value of PRIVATE) expect(text).not.toContain(value);
  };

  it('REST: stores the record sealed and shows only which fields and the last 4 digits', async () => {
    const created = await request(stack.url, 'POST', '/v1/onramp', {
      key,
      body: permanent({
        first_name: 'Adaeze',
        last_name: 'Okafor',
        phone: PHONE,
        bvn: BVN,
        nin: NIN,
      }),
    });
    expect(created.status).toBe(201);
    const summary = {
      fields: ['first_name', 'last_name', 'phone', 'bvn', 'nin'],
      bvn_last4: '5678',
      nin_last4: '6789',
    };
    expect(created.body.customer).toEqual(summary);
    expectNothingPrivate(created.text);

    const id = created.body.onramp_id;
    const stored = await storedCustomer(id);
    expect(stored.customer_sealed).toMatch(/^enc:v1:[0-9a-f]{16}:/);
    expectNothingPrivate(JSON.stringify(stored));

    const read = await request(stack.url, 'GET', `/v1/onramp/${id}`, { key });
    expect(read.body.customer).toEqual(summary);
    expectNothingPrivate(read.text);
    // The payer's frontend reads its onramp with the client secret: the same summary.
    const own = await request(stack.url, 'GET', `/v1/onramp/${id}`, {
      key: created.body.client_secret,
    });
    expect(own.status).toBe(200);
    expect(own.body.customer).toEqual(summary);
    const list = await request(stack.url, 'GET', '/v1/onramps?per_page=100', { key });
    expect(
      list.body.onramps.find((o: { onramp_id: string }) => o.onramp_id === id).customer,
    ).toEqual(summary);
    expectNothingPrivate(list.text);

    const without = await request(stack.url, 'POST', '/v1/onramp', { key, body: permanent() });
    expect(without.body.customer).toBeNull();
    expect(await storedCustomer(without.body.onramp_id)).toEqual({
      customer_sealed: null,
      customer_fields: null,
    });
    // Every field absent is no record at all.
    const empty = await request(stack.url, 'POST', '/v1/onramp', { key, body: permanent({}) });
    expect(empty.status).toBe(201);
    expect(empty.body.customer).toBeNull();
  });

  it('GraphQL: createOnramp takes the record; Onramp.customer shows the same summary', async () => {
    const created = await graphql(stack.url, key, CREATE, {
      input: {
        type: 'PERMANENT',
        user: { email: 'ada@example.com' },
        settlement: { mode: 'MERCHANT_BALANCE' },
        customer: { firstName: 'Adaeze', phone: PHONE, nin: NIN },
      },
    });
    expect(created.body.errors).toBeUndefined();
    const summary = { fields: ['FIRST_NAME', 'PHONE', 'NIN'], bvnLast4: null, ninLast4: '6789' };
    const { onrampId, customer } = created.body.data.createOnramp;
    expect(customer).toEqual(summary);
    expectNothingPrivate(created.text);
    expect((await storedCustomer(onrampId)).customer_sealed).toMatch(/^enc:v1:/);
    expectNothingPrivate(JSON.stringify(await storedCustomer(onrampId)));

    const read = await graphql(
      stack.url,
      key,
      `
        query ($id: ID!) {
          onramp(id: $id) {
            customer {
              fields
              bvnLast4
              ninLast4
            }
          }
          onramps(first: 100) {
            edges {
              node {
                onrampId
                customer {
                  fields
                  bvnLast4
                  ninLast4
                }
              }
            }
          }
        }
      `,
      { id: onrampId },
    );
    expect(read.body.errors).toBeUndefined();
    expect(read.body.data.onramp.customer).toEqual(summary);
    const node = read.body.data.onramps.edges
      .map((edge: { node: { onrampId: string } }) => edge.node)
      .find((n: { onrampId: string }) => n.onrampId === onrampId);
    expect(node.customer).toEqual(summary);
  });

  it('REST: refuses a bad record with 400 in the error shape, creating nothing', async () => {
    const cases: Array<[string, unknown, RegExp]> = [
      ['12-digit BVN', { bvn: `${BVN}9` }, /customer\.bvn/],
      ['10-digit NIN', { nin: NIN.slice(1) }, /customer\.nin/],
      ['BVN with letters', { bvn: '2221234567a' }, /customer\.bvn/],
      ['BVN as a number', { bvn: 22212345678 }, /customer\.bvn/],
      ['first name of 101 characters', { first_name: 'A'.repeat(101) }, /customer\.first_name/],
      ['last name without a letter', { last_name: '1234' }, /customer\.last_name/],
      ['phone with letters', { phone: '0803CALLME1' }, /customer\.phone/],
      ['unknown field inside customer', { bvn: BVN, email: 'x@example.com' }, /customer\.email/],
      ['customer as a string', BVN, /customer/],
      ['customer as null', null, /customer/],
      ['customer as an array', [BVN], /customer/],
    ];
    const before = await onrampCount();
    for (const [name, customer, parameter] of cases) {
      const response = await request(stack.url, 'POST', '/v1/onramp', {
        key,
        body: permanent(customer),
      });
      expect({ name, status: response.status }).toEqual({ name, status: 400 });
      expect(response.body).toEqual({
        error: { code: 'invalid_parameter', message: expect.stringMatching(parameter) },
      });
      expectNothingPrivate(response.text);
    }
    expect(await onrampCount()).toBe(before);
  });

  it('GraphQL: refuses a bad record, creating nothing', async () => {
    const input = (customer: unknown) => ({
      input: {
        type: 'PERMANENT',
        user: { email: 'ada@example.com' },
        settlement: { mode: 'MERCHANT_BALANCE' },
        customer,
      },
    });
    const before = await onrampCount();
    const domain = await graphql(stack.url, key, CREATE, input({ bvn: `${BVN}9` }));
    expect(domain.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
    expect(domain.body.errors?.[0].message).toMatch(/customer\.bvn/);
    const longName = await graphql(stack.url, key, CREATE, input({ lastName: 'B'.repeat(101) }));
    expect(longName.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
    for (const customer of [{ bvn: BVN, email: 'x@example.com' }, BVN, { bvn: 22212345678 }]) {
      const refused = await graphql(stack.url, key, CREATE, input(customer));
      expect(refused.status).toBe(400);
      expect(refused.body.errors?.[0].extensions?.code).toBe('INVALID_PARAMETER');
      expect(refused.body.data).toBeUndefined();
    }
    expect(await onrampCount()).toBe(before);
  });
});
