// The Paystack provider against the Paystack stand-in over real HTTP: notifications the
// stand-in signs, verify before crediting, the sweep's listing, and returns by transfer.
import { ManualClock } from '../../src/clock';
import {
  ProviderRefusedError,
  ProviderUnavailableError,
  type ProvisionedAccount,
} from '../../src/adapters/bank/bank-provider';
import type { OutboundReturn } from '../../src/adapters/bank/bank-transfers';
import { PaystackProvider } from '../../src/adapters/bank/paystack/paystack-provider';
import type { InboundTransfer } from '../../src/deposits';
import { startPaystackStandIn, type PaystackStandIn } from '../support/paystack-stand-in';

let standIn: PaystackStandIn;
let account: ProvisionedAccount;

function provider(options: { secretKey?: string; maxPages?: number } = {}) {
  return new PaystackProvider({
    secretKey: options.secretKey ?? standIn.secretKey,
    baseUrl: standIn.url,
    preferredBank: 'wema-bank',
    timeoutMs: 2000,
    clock: new ManualClock(),
    listLimits: { perPage: 2, maxPages: options.maxPages ?? 10 },
  });
}

beforeAll(async () => {
  standIn = await startPaystackStandIn();
  account = await provider().openAccount({
    reference: 'onr_01J9ZK3M4N5P6Q7R8S9T0VWXYZ',
    accountName: 'Karokart',
    customer: { email: 'ada@example.com', firstName: 'Ada', lastName: 'Obi', phone: '08154211006' },
  });
});

afterAll(async () => {
  await standIn.close();
});

/** What the notification of a payment announces, parsed by the provider itself. */
function announced(kobo: number, reference?: string): InboundTransfer {
  const notification = standIn.pay(account.accountNumber, kobo, reference ? { reference } : {});
  const event = provider().notifications.parse(notification.rawBody, notification.headers);
  if (event.type !== 'transfer.received') throw new Error(`unexpected ${event.type}`);
  return event.transfer;
}

describe('Paystack provider: confirming an announced transfer', () => {
  it("confirms a payment Paystack verifies, answering Paystack's figures", async () => {
    const transfer = announced(1000050);
    expect(transfer).toMatchObject({ accountNumber: account.accountNumber, amountNgn: '10000.50' });
    await expect(provider().confirm(transfer)).resolves.toEqual({ confirmed: true, transfer });
  });

  it('URL-encodes the reference', async () => {
    const transfer = announced(20000, 'T9171231/412 325');
    await expect(provider().confirm(transfer)).resolves.toMatchObject({ confirmed: true });
    expect(standIn.requests.at(-1)!.path).toBe('/transaction/verify/T9171231%2F412%20325');
  });

  it.each<[string, Parameters<PaystackStandIn['disagree']>[1], RegExp]>([
    ['another amount', { amount: 1000 }, /amount is 10\.00 NGN, not 500\.00/],
    ['another account', { receiverAccount: '0123456789' }, /receiving account is 0123456789/],
    ['a reversed status', { status: 'reversed' }, /data\.status: must be success, not reversed/],
    ['another currency', { currency: 'GHS' }, /data\.currency: must be NGN/],
    ['no such transaction', 'unknown', /does not know it: .*Transaction reference not found/],
  ])('does not confirm when verify answers %s', async (_why, disagreement, reason) => {
    const transfer = announced(50000);
    standIn.disagree(transfer.bankReference, disagreement);
    const answer = await provider().confirm(transfer);
    expect(answer.confirmed).toBe(false);
    expect(!answer.confirmed && answer.reason).toMatch(reason);
  });

  it('does not confirm a reference Paystack never had', async () => {
    const forged = { ...announced(50000), bankReference: 'forged-reference' };
    await expect(provider().confirm(forged)).resolves.toMatchObject({ confirmed: false });
  });

  it('throws ProviderUnavailableError when verify is down, and a bad key is no "not confirmed"', async () => {
    const transfer = announced(50000);
    standIn.failNext('GET /transaction/verify/:reference', 502);
    await expect(provider().confirm(transfer)).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(
      provider({ secretKey: 'sk_test_wrong0123456789' }).confirm(transfer),
    ).rejects.toBeInstanceOf(ProviderRefusedError);
  });
});

describe('Paystack provider: listing transfers for the sweep', () => {
  const window = { from: new Date('2031-01-01T00:00:00Z'), to: new Date('2031-01-02T00:00:00Z') };
  const at = (hour: number) => new Date(`2031-01-01T${String(hour).padStart(2, '0')}:00:00Z`);

  beforeAll(() => {
    for (let hour = 1; hour <= 5; hour += 1) {
      standIn.record(account.accountNumber, hour * 10000, {
        reference: `sweep-${hour}`,
        paidAt: at(hour),
      });
    }
    standIn.record(account.accountNumber, 70000, {
      reference: 'sweep-late',
      paidAt: new Date('2031-01-03T00:00:00Z'),
    });
  });

  it('reads every page of successful dedicated_nuban transactions in the window', async () => {
    const before = standIn.requests.length;
    const found = await provider().listTransfers(window);
    expect(found.map((t) => [t.bankReference, t.amountNgn]).sort()).toEqual([
      ['sweep-1', '100.00'],
      ['sweep-2', '200.00'],
      ['sweep-3', '300.00'],
      ['sweep-4', '400.00'],
      ['sweep-5', '500.00'],
    ]);
    expect(found.every((t) => t.accountNumber === account.accountNumber)).toBe(true);
    const listed = standIn.requests.slice(before).filter((r) => r.path.startsWith('/transaction?'));
    expect(listed).toHaveLength(3);
    const query = new URLSearchParams(listed[0]!.path.split('?')[1]);
    expect(Object.fromEntries(query)).toMatchObject({
      status: 'success',
      channel: 'dedicated_nuban',
      from: '2031-01-01T00:00:00.000Z',
      to: '2031-01-02T00:00:00.000Z',
      perPage: '2',
      page: '1',
    });
  });

  it('verifies an entry the list gives without its receiving account (PS-OAS list schema)', async () => {
    standIn.books.listWithoutReceiver = true;
    try {
      const before = standIn.requests.length;
      const found = await provider().listTransfers(window);
      expect(found.map((t) => t.accountNumber)).toEqual(Array(5).fill(account.accountNumber));
      const verified = standIn.requests
        .slice(before)
        .filter((r) => r.path.startsWith('/transaction/verify/'));
      expect(verified).toHaveLength(5);
    } finally {
      standIn.books.listWithoutReceiver = false;
    }
  });

  it('stops after maxPages', async () => {
    await expect(provider({ maxPages: 2 }).listTransfers(window)).resolves.toHaveLength(4);
  });

  it('throws ProviderUnavailableError when a page fails', async () => {
    standIn.failNext('GET /transaction', 500);
    await expect(provider().listTransfers(window)).rejects.toBeInstanceOf(ProviderUnavailableError);
  });
});

describe('Paystack provider: returns by transfer', () => {
  let serial = 0;
  function outbound(changes: Partial<OutboundReturn> = {}): OutboundReturn {
    serial += 1;
    return {
      depositId: 'dep_1',
      merchantId: 'mer_1',
      amountNgn: '4950.50',
      toAccount: '0123456789',
      bankCode: '058',
      name: 'Ada Obi',
      reference: `ret_01J9ZK3M4N5P6Q7R8S9T0VW${String(serial).padStart(3, '0')}`,
      ...changes,
    };
  }
  // The sandbox bank reads the merchant's scenario through `em`; Paystack ignores it.
  const em = undefined as never;
  const send = (transfer: OutboundReturn) => provider().transfers.sendReturn(transfer, em);

  it('sends kobo with the lowercased reference; a repeat sends nothing more', async () => {
    const ret = outbound();
    await expect(send(ret)).resolves.toEqual({ outcome: 'accepted' });
    const posted = standIn.requests.find((r) => r.path === '/transfer')!;
    expect(posted.body).toMatchObject({
      source: 'balance',
      amount: 495050,
      reference: ret.reference.toLowerCase(),
      currency: 'NGN',
    });
    await expect(send(ret)).resolves.toEqual({ outcome: 'accepted' });
    expect(standIn.transferAttempts(ret.reference)).toBe(1);

    const notification = standIn.completeTransfer(ret.reference, 'success');
    expect(
      provider().notifications.parse(notification.rawBody, notification.headers),
    ).toMatchObject({
      type: 'transfer.return_completed',
      reference: ret.reference,
    });
    await expect(send(ret)).resolves.toEqual({ outcome: 'completed' });
    expect(standIn.transferAttempts(ret.reference)).toBe(1);
  });

  it('after an answer lost on the way back, the retry learns the transfer and sends nothing', async () => {
    const ret = outbound();
    standIn.failNext('POST /transfer', 'lost');
    await expect(send(ret)).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(send(ret)).resolves.toEqual({ outcome: 'accepted' });
    expect(standIn.transferAttempts(ret.reference)).toBe(1);
    expect(standIn.transferCount(ret.reference)).toBe(1);
  });

  it("a duplicate-reference refusal is answered with the transfer's own status", async () => {
    const ret = outbound();
    await send(ret);
    standIn.completeTransfer(ret.reference, 'failed');
    // The look-up before sending misses it once: POST /transfer is refused as a duplicate.
    standIn.failNext('GET /transfer/verify/:reference', 404);
    await expect(send(ret)).resolves.toEqual({
      outcome: 'refused',
      reason: 'Paystack transfer failed',
    });
    expect(standIn.transferCount(ret.reference)).toBe(1);
  });

  it.each([
    ['success', { outcome: 'completed' }],
    ['otp', { outcome: 'accepted' }],
    ['failed', { outcome: 'refused', reason: 'Paystack transfer failed' }],
  ])('maps a new transfer in status %s', async (status, outcome) => {
    standIn.transferBooks.newTransferStatus = status;
    try {
      await expect(send(outbound())).resolves.toEqual(outcome);
    } finally {
      standIn.transferBooks.newTransferStatus = 'pending';
    }
  });

  it("finds the code of a bank given by name (Paystack's sender_bank)", async () => {
    await expect(send(outbound({ bankCode: 'guaranty trust  BANK' }))).resolves.toEqual({
      outcome: 'accepted',
    });
    expect(
      standIn.requests.filter((r) => r.path === '/transferrecipient').at(-1)!.body,
    ).toMatchObject({
      type: 'nuban',
      bank_code: '058',
      account_number: '0123456789',
    });
  });

  it.each([
    ['no bank', null, /bank is unknown/],
    ['a bank Paystack does not list', 'Moon Bank', /Paystack lists no bank "Moon Bank"/],
    ['a code Paystack cannot resolve', '999', /Cannot resolve account/],
  ])('refuses a return to %s, sending no transfer', async (_why, bankCode, reason) => {
    const ret = outbound({ bankCode });
    const answer = await send(ret);
    expect(answer.outcome).toBe('refused');
    expect(answer.outcome === 'refused' && answer.reason).toMatch(reason);
    expect(standIn.transferAttempts(ret.reference)).toBe(0);
  });

  it('throws ProviderUnavailableError when Paystack is down, and the retry sends once', async () => {
    const ret = outbound();
    standIn.failNext('POST /transferrecipient', 503);
    await expect(send(ret)).rejects.toBeInstanceOf(ProviderUnavailableError);
    await expect(send(ret)).resolves.toEqual({ outcome: 'accepted' });
    expect(standIn.transferAttempts(ret.reference)).toBe(1);
  });
});
