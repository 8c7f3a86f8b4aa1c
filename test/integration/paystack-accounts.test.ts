// The Paystack provider against the Paystack stand-in over real HTTP: dedicated accounts, the
// health check, and how Paystack's answers map to our errors.
import { ManualClock } from '../../src/clock';
import {
  ProviderRefusedError,
  ProviderUnavailableError,
  type AccountRequest,
} from '../../src/adapters/bank/bank-provider';
import { PaystackProvider } from '../../src/adapters/bank/paystack/paystack-provider';
import { startPaystackStandIn, type PaystackStandIn } from '../support/paystack-stand-in';
import { customerEmailFor } from '../../src/adapters/bank/paystack/paystack-accounts';

let standIn: PaystackStandIn;

beforeAll(async () => {
  standIn = await startPaystackStandIn();
});

afterAll(async () => {
  await standIn.close();
});

function provider(options: { secretKey?: string; baseUrl?: string; preferredBank?: string } = {}) {
  return new PaystackProvider({
    secretKey: options.secretKey ?? standIn.secretKey,
    baseUrl: options.baseUrl ?? standIn.url,
    preferredBank: options.preferredBank ?? 'wema-bank',
    timeoutMs: 1000,
    clock: new ManualClock(),
  });
}

let serial = 0;
function request(changes: Partial<AccountRequest['customer']> = {}): AccountRequest {
  serial += 1;
  return {
    reference: `onr_01J9ZK3M4N5P6Q7R8S9T0VW${String(serial).padStart(3, '0')}`,
    accountName: 'Karokart',
    customer: {
      email: `payer${serial}+test@example.com`,
      firstName: 'Rhoda',
      lastName: 'Church',
      phone: '+2349053267565',
      ...changes,
    },
  };
}

/** The Paystack customer's email for the request: the payer's, tagged with the reference. */
const tagged = (asked: AccountRequest) => customerEmailFor(asked.customer.email, asked.reference);

const paths = () => standIn.requests.map((r) => `${r.method} ${r.path.split('?')[0]}`);

async function rejection(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected a rejection');
}

describe('Paystack provider: customer fields', () => {
  it('needs first_name, last_name and phone (blank counts as missing)', () => {
    const paystack = provider();
    expect(paystack.missingCustomerFields({ email: 'a@example.com' })).toEqual([
      'customer.first_name',
      'customer.last_name',
      'customer.phone',
    ]);
    expect(
      paystack.missingCustomerFields({
        email: 'a@b.co',
        firstName: ' ',
        lastName: 'C',
        phone: '1',
      }),
    ).toEqual(['customer.first_name']);
    expect(
      paystack.missingCustomerFields({
        email: 'a@b.co',
        firstName: 'A',
        lastName: 'C',
        phone: '1',
      }),
    ).toEqual([]);
    expect(paystack.pooled).toBe(false);
    expect(paystack.simulated).toBe(false);
  });
});

describe('Paystack provider: opening dedicated accounts', () => {
  it('creates the customer, then the account; answers its number, bank, code and id', async () => {
    const asked = request();
    const before = standIn.requests.length;
    const account = await provider().openAccount(asked);

    const dva = standIn.books.accounts.at(-1)!;
    expect(account).toEqual({
      accountNumber: dva.accountNumber,
      bankName: 'Wema Bank',
      // Paystack's bank.id is 20; the NIP code from its bank list is 035.
      bankCode: '035',
      accountName: 'KAROKART / RHODA CHURCH',
      providerAccountId: String(dva.id),
    });
    expect(account.accountNumber).toMatch(/^[0-9]{10}$/);
    const made = standIn.requests.slice(before);
    expect(made.every((r) => r.authorized)).toBe(true);
    expect(made.map((r) => `${r.method} ${r.path.split('?')[0]}`)).toEqual([
      'GET /bank',
      `GET /customer/${encodeURIComponent(tagged(asked))}`,
      'POST /customer',
      'POST /dedicated_account',
    ]);
    expect(made[2]!.body).toEqual({
      email: tagged(asked),
      first_name: 'Rhoda',
      last_name: 'Church',
      phone: '+2349053267565',
      metadata: JSON.stringify({ onramp_reference: asked.reference }),
    });
    expect(made[3]!.body).toMatchObject({ preferred_bank: 'wema-bank' });
  });

  it('two onramps of the same payer get two customers and two accounts', async () => {
    const first = request();
    const second = { ...request(), customer: first.customer };
    const paystack = provider();
    const [a, b] = [await paystack.openAccount(first), await paystack.openAccount(second)];
    expect(a.accountNumber).not.toBe(b.accountNumber);
    expect(tagged(first)).toBe(`payer${serial - 1}+${first.reference.toLowerCase()}@example.com`);
  });

  it('a retry with the same reference finds the account instead of opening a second', async () => {
    const asked = request();
    const paystack = provider();
    const first = await paystack.openAccount(asked);
    const before = standIn.requests.length;
    const again = await paystack.openAccount(asked);
    expect(again).toEqual(first);
    expect(paths().slice(before)).not.toContain('POST /dedicated_account');
    expect(
      standIn.books.accounts.filter((a) => a.accountNumber === first.accountNumber),
    ).toHaveLength(1);
  });

  it('after an answer lost on the way back, the retry answers the account Paystack made', async () => {
    const asked = request();
    const paystack = provider();
    const accountsBefore = standIn.books.accounts.length;
    standIn.failNext('POST /dedicated_account', 'lost');
    expect(await rejection(paystack.openAccount(asked))).toBeInstanceOf(ProviderUnavailableError);
    expect(standIn.books.accounts).toHaveLength(accountsBefore + 1);

    const account = await paystack.openAccount(asked);
    expect(account.accountNumber).toBe(standIn.books.accounts.at(-1)!.accountNumber);
    expect(standIn.books.accounts).toHaveLength(accountsBefore + 1);
  });

  it('gives an existing Paystack customer without names its names on the account call', async () => {
    const asked = request();
    await fetch(`${standIn.url}/customer`, {
      method: 'POST',
      headers: { authorization: `Bearer ${standIn.secretKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: tagged(asked) }),
    });
    const account = await provider().openAccount(asked);
    expect(account.accountName).toBe('KAROKART / RHODA CHURCH');
  });

  it.each([500, 503, 429])('Paystack answering %d is ProviderUnavailableError', async (status) => {
    standIn.failNext('POST /customer', status);
    const error = await rejection(provider().openAccount(request()));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toContain(`answered ${status}`);
    expect(error.message).not.toContain(standIn.secretKey);
  });

  it('no answer within the timeout is ProviderUnavailableError', async () => {
    standIn.failNext('GET /customer/:email_or_code', 'hang');
    const error = await rejection(provider().openAccount(request()));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toBe('Paystack fetch customer: no answer within 1000 ms');
  });

  it('an unreachable Paystack is ProviderUnavailableError', async () => {
    const other = await startPaystackStandIn();
    const url = other.url;
    await other.close();
    const error = await rejection(provider({ baseUrl: url }).openAccount(request()));
    expect(error).toBeInstanceOf(ProviderUnavailableError);
    expect(error.message).toMatch(/^Paystack list banks: unreachable/);
  });

  it("a 4xx is ProviderRefusedError carrying Paystack's message", async () => {
    const error = await rejection(provider({ preferredBank: 'moon-bank' }).openAccount(request()));
    expect(error).toBeInstanceOf(ProviderRefusedError);
    expect(error.message).toBe(
      'Paystack refused create dedicated account (400): Invalid preferred bank',
    );
  });

  it('a wrong secret key is refused, and the key appears in no message', async () => {
    const wrongKey = 'sk_test_wrong0123456789';
    const error = await rejection(provider({ secretKey: wrongKey }).openAccount(request()));
    expect(error).toBeInstanceOf(ProviderRefusedError);
    expect(error.message).toBe('Paystack refused list banks (401): Invalid key');
    expect(standIn.requests.at(-1)!.authorized).toBe(false);
  });
});

describe('Paystack provider: health', () => {
  it('is ok when an authenticated call succeeds', async () => {
    await expect(provider().health()).resolves.toEqual({ ok: true });
    expect(paths().at(-1)).toBe('GET /dedicated_account/available_providers');
  });

  it('is not ok, with the reason, when Paystack fails or refuses our key', async () => {
    standIn.failNext('GET /dedicated_account/available_providers', 502);
    await expect(provider().health()).resolves.toEqual({
      ok: false,
      detail: 'Paystack fetch dedicated account providers answered 502: An error occurred',
    });
    const health = await provider({ secretKey: 'sk_test_wrong0123456789' }).health();
    expect(health.ok).toBe(false);
    expect(health.detail).toContain('Invalid key');
    expect(health.detail).not.toContain('sk_test_wrong');
  });
});
