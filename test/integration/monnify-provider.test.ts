import {
  ProviderRefusedError,
  ProviderUnavailableError,
} from '../../src/adapters/bank/bank-provider';
import { bankProvidersFromConfig } from '../../src/adapters/bank/bank-providers';
import type { BankTransfers } from '../../src/adapters/bank/bank-transfers';
import { ManualClock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { accountRequest, monnifyProviderFor } from '../support/monnify-provider-kit';
import { startMonnifyStandIn, type MonnifyStandIn } from '../support/monnify-stand-in';

/** The provider against the Monnify stand-in over real HTTP: auth, reserved accounts, errors. */
describe('Monnify provider: token, reserved accounts, health (stand-in over HTTP)', () => {
  let standIn: MonnifyStandIn;
  let clock: ManualClock;

  beforeAll(async () => {
    standIn = await startMonnifyStandIn();
  });
  afterAll(async () => {
    await standIn.close();
  });
  beforeEach(() => {
    clock = new ManualClock('2026-10-01T09:00:00Z');
    standIn.tokenLifetimeSeconds = 3600;
  });

  it('logs in once, keeps the token until expiresIn less a margin by our clock, then again', async () => {
    const provider = monnifyProviderFor(standIn, clock);
    const logins = standIn.count('login');
    await provider.openAccount(accountRequest());
    await provider.openAccount(accountRequest());
    expect(standIn.count('login')).toBe(logins + 1);
    clock.advance((3600 - 60) * 1000 - 1000); // still inside expiresIn less the 60 s margin
    await provider.openAccount(accountRequest());
    expect(standIn.count('login')).toBe(logins + 1);
    clock.advance(2000);
    await provider.openAccount(accountRequest());
    expect(standIn.count('login')).toBe(logins + 2);
  });

  it('renews a token Monnify stops accepting (401) once, and the call goes through', async () => {
    const provider = monnifyProviderFor(standIn, clock);
    await provider.openAccount(accountRequest());
    const logins = standIn.count('login');
    standIn.expireTokens();
    const request = accountRequest();
    const account = await provider.openAccount(request);
    expect(account.providerAccountId).toBe(request.reference);
    expect(standIn.count('login')).toBe(logins + 1);
  });

  it('opens a reserved account keyed by our reference, with the BVN and the customer name', async () => {
    const provider = monnifyProviderFor(standIn, clock);
    const request = accountRequest();
    const account = await provider.openAccount(request);
    expect(account).toEqual({
      accountNumber: expect.stringMatching(/^[0-9]{10}$/),
      bankCode: '50515',
      bankName: 'Moniepoint Microfinance Bank',
      accountName: 'Acme Pay',
      providerAccountId: request.reference,
    });
    const reserved = standIn.state.reserved.get(request.reference)!;
    expect(reserved).toMatchObject({ customerName: 'Ada Okafor', bvn: '22288899900' });
    expect(reserved.accounts[0]!.accountNumber).toBe(account.accountNumber);
  });

  it('asks for MONNIFY_PREFERRED_BANKS only and gives the first preferred bank', async () => {
    const provider = monnifyProviderFor(standIn, clock, { preferredBanks: ['232', '035'] });
    const request = accountRequest({ bvn: undefined, nin: '12345678901' });
    const account = await provider.openAccount(request);
    expect(account.bankCode).toBe('232');
    const reserved = standIn.state.reserved.get(request.reference)!;
    expect(reserved.accounts.map((entry) => entry.bankCode)).toEqual(['035', '232']);
    expect(reserved.nin).toBe('12345678901');
  });

  it('opening the same reference again finds the first account (Monnify refuses a second)', async () => {
    const provider = monnifyProviderFor(standIn, clock);
    const request = accountRequest();
    const first = await provider.openAccount(request);
    const again = await monnifyProviderFor(standIn, clock).openAccount(request);
    expect(again).toEqual(first);
    expect(standIn.count('reserveAccount', request.reference)).toBe(2);
    expect(standIn.count('getReservedAccount', request.reference)).toBe(1);
  });

  it('needs an 11-digit BVN or NIN, and asks Monnify nothing without one', async () => {
    const provider = monnifyProviderFor(standIn, clock);
    expect(provider.missingCustomerFields({ email: 'a@b.ng' })).toEqual([
      'customer.bvn or customer.nin',
    ]);
    expect(provider.missingCustomerFields({ email: 'a@b.ng', bvn: '123' })).toEqual([
      'customer.bvn or customer.nin',
    ]);
    expect(provider.missingCustomerFields({ email: 'a@b.ng', nin: '12345678901' })).toEqual([]);
    const request = accountRequest({ bvn: undefined });
    await expect(provider.openAccount(request)).rejects.toThrow(ProviderRefusedError);
    expect(standIn.count('reserveAccount', request.reference)).toBe(0);
  });

  it('5xx, 429 and a timeout are unavailable; another 4xx is refused with its message', async () => {
    const provider = monnifyProviderFor(standIn, clock, { timeoutMs: 300 });
    for (const status of [500, 503, 429]) {
      standIn.failNext('reserveAccount', status);
      await expect(provider.openAccount(accountRequest())).rejects.toThrow(
        new ProviderUnavailableError(`Monnify answered ${status} to reserve account`),
      );
    }
    standIn.failNext('reserveAccount', 400);
    const refused = provider.openAccount(accountRequest());
    await expect(refused).rejects.toThrow(ProviderRefusedError);
    await expect(refused).rejects.toThrow(
      'Monnify refused reserve account (400): Stand-in failure 400',
    );
    standIn.failNext('reserveAccount', 'hang');
    await expect(provider.openAccount(accountRequest())).rejects.toThrow(
      new ProviderUnavailableError('Monnify reserve account timed out after 300 ms'),
    );
  });

  it('an unreachable Monnify is unavailable', async () => {
    const closed = await startMonnifyStandIn();
    await closed.close();
    const provider = monnifyProviderFor(closed, clock);
    await expect(provider.openAccount(accountRequest())).rejects.toThrow(ProviderUnavailableError);
    expect(await provider.health()).toEqual({
      ok: false,
      detail: expect.stringMatching(/^Monnify login could not be reached/),
    });
  });

  it('wrong keys are refused, and no error carries a key, a token or the Basic header', async () => {
    const provider = monnifyProviderFor(standIn, clock, { secretKey: 'WRONG-SECRET-KEY-123' });
    const failure = await provider.openAccount(accountRequest()).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ProviderRefusedError);
    const message = (failure as Error).message;
    expect(message).toMatch(/^Monnify refused the API key and secret key \(401\)/);
    const health = await provider.health();
    expect(health.ok).toBe(false);
    const basic = Buffer.from(`${standIn.apiKey}:WRONG-SECRET-KEY-123`).toString('base64');
    for (const text of [message, health.detail!]) {
      for (const secret of [standIn.apiKey, 'WRONG-SECRET-KEY-123', standIn.secretKey, basic]) {
        expect(text).not.toContain(secret);
      }
    }
  });

  it('health logs in for real every time (a cached token proves nothing)', async () => {
    const provider = monnifyProviderFor(standIn, clock);
    const logins = standIn.count('login');
    expect(await provider.health()).toEqual({ ok: true });
    expect(await provider.health()).toEqual({ ok: true });
    expect(standIn.count('login')).toBe(logins + 2);
    standIn.failNext('login', 503);
    expect(await provider.health()).toEqual({
      ok: false,
      detail: 'Monnify answered 503 to login',
    });
  });

  it('BANK_PROVIDERS=monnify builds it from the MONNIFY_* settings', async () => {
    const config = loadConfig({
      BANK_PROVIDERS: 'monnify',
      MONNIFY_API_KEY: standIn.apiKey,
      MONNIFY_SECRET_KEY: standIn.secretKey,
      MONNIFY_CONTRACT_CODE: standIn.contractCode,
      MONNIFY_SOURCE_ACCOUNT: standIn.sourceAccount,
      MONNIFY_BASE_URL: standIn.url,
      MONNIFY_PREFERRED_BANKS: '035',
    });
    const unused: BankTransfers = {
      name: 'unused',
      sendReturn: () => Promise.reject(new Error('not the sandbox bank')),
    };
    const provider = bankProvidersFromConfig(config, clock, unused).get('monnify')!;
    expect(provider).toMatchObject({ name: 'monnify', pooled: false, simulated: false });
    expect((await provider.openAccount(accountRequest())).bankCode).toBe('035');
  });
});
