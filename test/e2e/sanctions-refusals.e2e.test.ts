import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getAddress } from 'viem';
import { createTestDatabase } from '../support/db';
import { graphql, request } from '../support/http';
import { freshRate, randomAddress } from '../support/onramps';
import { createMerchant, onrampCli, startStack, type Stack } from '../support/stack';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/** The snapshot the build shipped: scripts/build.js copies it into dist/ for the processes. */
const SNAPSHOT = join(__dirname, '..', '..', 'dist', 'data', 'sanctions', 'ofac-sdn-evm.txt');

interface ListUnderTest {
  date: string;
  addresses: string[];
  /** SANCTIONS_LIST_PATH for the processes: set only for the stand-in list. */
  path?: string;
  description: string;
}

/**
 * The shipped snapshot when the build shipped one. A clone without it (the snapshot is data
 * brought in from a public list and lives beside the repository, docs/decisions.md
 * "Sanctions screening") runs the same refusals against a stand-in list given to the processes
 * through SANCTIONS_LIST_PATH: addresses made up for the test, not OFAC entries.
 */
function listUnderTest(): ListUnderTest {
  if (existsSync(SNAPSHOT)) {
    const text = readFileSync(SNAPSHOT, 'utf8');
    const date = /^# date: (\d{4}-\d{2}-\d{2})$/m.exec(text)?.[1];
    const addresses = text.split('\n').filter((line) => /^0x[0-9a-fA-F]{40}$/.test(line));
    if (!date || addresses.length === 0) throw new Error(`${SNAPSHOT} has no date or no address`);
    return { date, addresses, description: 'shipped snapshot' };
  }
  const addresses = Array.from({ length: 12 }, () => randomAddress());
  const path = join(mkdtempSync(join(tmpdir(), 'sanctions-e2e-')), 'stand-in.txt');
  writeFileSync(
    path,
    `# a stand-in list for tests, not OFAC entries\n# date: 2026-01-15\n${addresses.join('\n')}\n`,
  );
  return { date: '2026-01-15', addresses, path, description: path };
}

/**
 * Sanctions screening through the processes (issue 36): the shipped snapshot is in force from
 * the start, and one of its addresses is refused, in every letter case, at onramp creation,
 * withdrawal and address-book entry, on REST and GraphQL, each refusal audited with the list's
 * date.
 */
describe('sanctions refusals through the processes', () => {
  const snapshot = listUnderTest();
  // One of the snapshot's own entries (checksummed in the file).
  const listed = getAddress(snapshot.addresses[Math.floor(snapshot.addresses.length / 2)]);
  const forms = {
    lower: listed.toLowerCase(),
    upper: `0x${listed.slice(2).toUpperCase()}`,
    checksum: listed,
  };
  let stack: Stack;
  let databaseUrl: string;
  let merchant: { merchant_id: string; api_key: string };
  let operatorToken: string;

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl, {
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        ...(snapshot.path ? { SANCTIONS_LIST_PATH: snapshot.path } : {}),
      },
    });
    merchant = await createMerchant(databaseUrl, 'Screened Co');
    operatorToken = (
      (await onrampCli(databaseUrl, ['operators', 'issue', '--name', 'ada', '--json'])) as {
        token: string;
      }
    ).token;
  });
  afterAll(() => stack?.stop());

  const call = (method: string, path: string, body?: unknown) =>
    request<Loose>(stack.url, method, path, { key: merchant.api_key, body });
  const gql = (query: string, variables: Record<string, unknown>) =>
    graphql<Loose>(stack.url, merchant.api_key, query, variables);
  const admin = async (query: string, variables?: Record<string, unknown>) => {
    const response = await request<Loose>(stack.internalUrl, 'POST', '/admin/graphql', {
      key: operatorToken,
      body: { query, variables },
    });
    expect(response.body.errors).toBeUndefined();
    return response.body.data;
  };
  const onrampBody = (rateId: string, destination: string) => ({
    type: 'THROWAWAY',
    user: { email: 'ada@example.com' },
    rate_id: rateId,
    settlement: {
      mode: 'AUTO_WITHDRAW',
      asset: 'USDC',
      chain: 'BASE',
      destination_address: destination,
    },
  });
  const withdrawal = (destination: string) => ({
    amount: '5',
    asset: 'USDC',
    chain: 'BASE',
    destination_address: destination,
  });

  it('starts with the shipped snapshot (or the stand-in list) in force: its date and size on the CLI and admin GraphQL', async () => {
    const status = await onrampCli(databaseUrl, ['sanctions', 'status', '--json']);
    expect(status).toMatchObject({
      in_force: true,
      list_date: snapshot.date,
      address_count: snapshot.addresses.length,
      origin: 'startup',
      description: snapshot.description,
    });
    const { sanctionsList } = await admin('{ sanctionsList { listDate addressCount origin } }');
    expect(sanctionsList).toEqual({
      listDate: snapshot.date,
      addressCount: snapshot.addresses.length,
      origin: 'startup',
    });
  });

  it.each(Object.entries(forms))(
    'refuses the listed address written in %s case at all three places, REST and GraphQL',
    async (_form, address) => {
      const rate = await freshRate(stack.url, merchant.api_key);
      const refusedRest = [
        await call('POST', '/v1/onramp', onrampBody(rate.rate_id, address)),
        await call('POST', '/v1/merchant/withdraw', withdrawal(address)),
        await call('POST', '/v1/merchant/withdrawal_addresses', { chain: 'BASE', address }),
      ];
      for (const response of refusedRest) {
        expect(response.status).toBe(422);
        expect(response.body).toEqual({
          error: {
            code: 'address_sanctioned',
            message: expect.stringContaining(`list of ${snapshot.date}`),
          },
        });
      }
      const refusedGql = [
        await gql(
          'mutation($i: CreateOnrampInput!) { createOnramp(input: $i) { onramp { id } } }',
          {
            i: {
              type: 'THROWAWAY',
              user: { email: 'ada@example.com' },
              rateId: rate.rate_id,
              settlement: {
                mode: 'AUTO_WITHDRAW',
                asset: 'USDC',
                chain: 'BASE',
                destinationAddress: address,
              },
            },
          },
        ),
        await gql('mutation($i: WithdrawInput!) { withdraw(input: $i) { id } }', {
          i: { amount: '5', asset: 'USDC', chain: 'BASE', destinationAddress: address },
        }),
        await gql(
          'mutation($i: AddWithdrawalAddressInput!) { addWithdrawalAddress(input: $i) { id } }',
          { i: { chain: 'BASE', address } },
        ),
      ];
      for (const response of refusedGql) {
        expect(response.body.data ?? null).toBeNull();
        expect(response.body.errors?.[0].extensions?.code).toBe('ADDRESS_SANCTIONED');
      }
    },
  );

  it('on a withdrawal: address_sanctioned before address_not_allowed before insufficient_balance', async () => {
    // No balance: an unlisted address hears insufficient_balance (the book is optional here).
    const unbooked = await call('POST', '/v1/merchant/withdraw', withdrawal(randomAddress()));
    expect(unbooked.body.error.code).toBe('insufficient_balance');
    const turnedOn = await call('PATCH', '/v1/merchant/settings', { require_address_book: true });
    expect(turnedOn.status).toBe(200);
    const unlisted = await call('POST', '/v1/merchant/withdraw', withdrawal(randomAddress()));
    expect(unlisted.body.error.code).toBe('address_not_allowed');
    // No balance and no address book entry: the listed address still hears address_sanctioned.
    const listedOne = await call('POST', '/v1/merchant/withdraw', withdrawal(listed));
    expect(listedOne.body.error.code).toBe('address_sanctioned');
    // And an unlisted destination makes an onramp as before.
    const rate = await freshRate(stack.url, merchant.api_key);
    const made = await call('POST', '/v1/onramp', onrampBody(rate.rate_id, randomAddress()));
    expect(made.status).toBe(201);
  });

  it("every refusal is in the operator's audit log with the list's date", async () => {
    const data = await admin(
      'query($t: ID!) { auditLog(targetId: $t, first: 100) { edges { node { actor action after } } } }',
      { t: merchant.merchant_id },
    );
    const refusals = data.auditLog.edges
      .map((e: Loose) => e.node)
      .filter((n: Loose) => n.action === 'sanctions.refuse');
    // 3 letter cases x 3 places x 2 transports, and the ordering test's one.
    expect(refusals).toHaveLength(19);
    for (const entry of refusals) {
      expect(entry.actor).toBe('system:sanctions_screening');
      expect(entry.after.list_date).toBe(snapshot.date);
      expect(entry.after.address.toLowerCase()).toBe(listed.toLowerCase());
    }
    const places = new Set(refusals.map((n: Loose) => n.after.place));
    expect(places).toEqual(new Set(['onramp_creation', 'withdrawal', 'address_book']));
  });
});
