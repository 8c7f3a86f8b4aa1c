import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankEvent } from '../../src/adapters/bank/bank-adapter';
import { ProviderUnavailableError } from '../../src/adapters/bank/bank-provider';
import type { OutboundReturn } from '../../src/adapters/bank/bank-transfers';
import type { MonnifyProvider } from '../../src/adapters/bank/monnify';
import { ManualClock } from '../../src/clock';
import type { InboundTransfer } from '../../src/deposits';
import { accountRequest, monnifyProviderFor } from '../support/monnify-provider-kit';
import { startMonnifyStandIn, type MonnifyStandIn } from '../support/monnify-stand-in';

const NO_EM = {} as EntityManager; // a real bank ignores it (BankTransfers)

/** Collections and returns through the provider against the Monnify stand-in over real HTTP. */
describe('Monnify provider: confirm, sweep and returns (stand-in over HTTP)', () => {
  let standIn: MonnifyStandIn;
  let provider: MonnifyProvider;
  let accountNumber: string;

  /** A payment's signed notification, parsed by the provider's own adapter. */
  const received = (amount: string, options = {}) => {
    const { rawBody, headers, transactionReference } = standIn.pay(accountNumber, amount, options);
    const event: BankEvent = provider.notifications.parse(Buffer.from(rawBody), headers);
    if (event.type !== 'transfer.received') throw new Error(`got ${event.type}`);
    return { transfer: event.transfer, transactionReference };
  };

  beforeAll(async () => {
    standIn = await startMonnifyStandIn();
    provider = monnifyProviderFor(standIn, new ManualClock('2026-10-01T09:00:00Z'));
    accountNumber = (await provider.openAccount(accountRequest())).accountNumber;
  });
  afterAll(async () => {
    await standIn.close();
  });

  it("confirms a notified transfer with Monnify's own figures", async () => {
    const paidAt = new Date('2026-10-01T08:15:30Z');
    const { transfer } = received('5000.5', { paidAt, amountAs: 'string' });
    expect(transfer).toMatchObject({
      accountNumber,
      amountNgn: '5000.50',
      senderAccount: '0065432190',
    });
    expect(await provider.confirm(transfer)).toEqual({
      confirmed: true,
      transfer: {
        accountNumber,
        amountNgn: '5000.50',
        bankReference: transfer.bankReference,
        senderName: 'ADAEZE OKAFOR',
        // Monnify's record masks it; the notification's full number ends in the same 4 digits.
        senderAccount: '0065432190',
        senderBank: '058',
        transferredAt: paidAt,
      },
    });
  });

  it('does not confirm what Monnify does not know, or knows otherwise', async () => {
    const unknown: InboundTransfer = {
      accountNumber,
      amountNgn: '10.00',
      bankReference: 'MNFY|04|X|1',
    };
    expect(await provider.confirm(unknown)).toEqual({
      confirmed: false,
      reason: 'Monnify does not know transaction MNFY|04|X|1',
    });
    const disagreements: [Record<string, unknown>, RegExp][] = [
      [{ amountPaid: '1.00' }, /amountPaid 1.00, not 700.00/],
      [{ paymentStatus: 'PENDING' }, /paymentStatus is PENDING/],
      [{ currency: 'USD' }, /currency is USD/],
      [{ product: { type: 'RESERVED_ACCOUNT', reference: 'someone-else' } }, /does not hold/],
      [{ product: { type: 'WEB_SDK', reference: 'x' } }, /not a reserved account/],
    ];
    for (const [fields, reason] of disagreements) {
      const { transfer, transactionReference } = received('700');
      standIn.disagree(transactionReference, fields);
      const answer = await provider.confirm(transfer);
      expect(answer).toEqual({ confirmed: false, reason: expect.stringMatching(reason) });
    }
  });

  it('does not confirm a notification that names another account or another payer', async () => {
    const { transfer } = received('900');
    expect((await provider.confirm({ ...transfer, accountNumber: '5999999999' })).confirmed).toBe(
      false,
    );
    expect(await provider.confirm({ ...transfer, senderAccount: '0123456789' })).toEqual({
      confirmed: false,
      reason: "Monnify's record: the payer's account ends in 2190",
    });
  });

  it('transport trouble while confirming is thrown, not an answer', async () => {
    const { transfer } = received('1200');
    standIn.failNext('transactionStatus', 502);
    await expect(provider.confirm(transfer)).rejects.toThrow(ProviderUnavailableError);
    expect((await provider.confirm(transfer)).confirmed).toBe(true);
  });

  it('lists paid transfers in the window across pages, bounded by maxPages', async () => {
    const local = await startMonnifyStandIn();
    try {
      const clock = new ManualClock('2026-10-02T12:00:00Z');
      const sweep = (maxPages: number) =>
        monnifyProviderFor(local, clock, { listing: { pageSize: 2, maxPages } });
      const number = (await sweep(10).openAccount(accountRequest())).accountNumber;
      const at = (minutes: number) =>
        new Date(Date.parse('2026-10-02T10:00:00Z') + minutes * 60_000);
      const inWindow = [1, 2, 3, 4, 5].map((m) =>
        local.recordPayment(number, `${m}00.25`, { paidAt: at(m) }),
      );
      local.recordPayment(number, '999', { paidAt: at(-120) }); // before the window
      local.disagree(inWindow[2]!, { paymentStatus: 'EXPIRED' }); // not paid: not listed
      const window = { from: at(0), to: at(60) };
      const searches = local.count('searchTransactions');
      const listed = await sweep(10).listTransfers(window);
      expect(listed.map((t) => t.amountNgn).sort()).toEqual([
        '100.25',
        '200.25',
        '400.25',
        '500.25',
      ]);
      expect(listed.every((t) => t.accountNumber === number)).toBe(true);
      expect(local.count('searchTransactions') - searches).toBe(3);
      expect(await sweep(1).listTransfers(window)).toHaveLength(2); // newest first, one page
      local.failNext('searchTransactions', 503);
      await expect(sweep(10).listTransfers(window)).rejects.toThrow(ProviderUnavailableError);
    } finally {
      await local.close();
    }
  });

  const aReturn = (reference: string, changes: Partial<OutboundReturn> = {}): OutboundReturn => ({
    depositId: 'dep_monnify_1',
    merchantId: 'mer_1',
    amountNgn: '4950.50',
    toAccount: '0065432190',
    bankCode: '058',
    name: 'ADAEZE OKAFOR',
    reference,
    ...changes,
  });

  it('sends a return once per reference, however often it is asked, and learns its outcome', async () => {
    const reference = `ret_${process.pid}_once`;
    expect(await provider.transfers.sendReturn(aReturn(reference), NO_EM)).toEqual({
      outcome: 'accepted',
    });
    expect(await provider.transfers.sendReturn(aReturn(reference), NO_EM)).toEqual({
      outcome: 'accepted',
    });
    expect(standIn.count('disburse', reference)).toBe(2);
    expect(
      [...standIn.state.disbursements.values()].filter((d) => d.reference === reference),
    ).toHaveLength(1);
    expect(standIn.state.disbursements.get(reference)).toMatchObject({
      amount: 4950.5,
      destinationBankCode: '058',
      destinationAccountName: 'ADAEZE OKAFOR',
    });
    const { rawBody, headers } = standIn.completeDisbursement(reference, 'SUCCESS');
    expect(provider.notifications.parse(rawBody, headers)).toMatchObject({
      type: 'transfer.return_completed',
      reference,
    });
    expect(await provider.transfers.sendReturn(aReturn(reference), NO_EM)).toEqual({
      outcome: 'completed',
    });
    expect(standIn.state.disbursements.size).toBeGreaterThanOrEqual(1);
  });

  it('maps a failed disbursement and its notification to a refusal', async () => {
    const reference = `ret_${process.pid}_fails`;
    await provider.transfers.sendReturn(aReturn(reference), NO_EM);
    const { rawBody, headers } = standIn.completeDisbursement(
      reference,
      'FAILED',
      'Insufficient balance',
    );
    expect(provider.notifications.parse(rawBody, headers)).toEqual({
      type: 'transfer.return_failed',
      reference,
      reason: 'Monnify: Insufficient balance',
    });
    expect(await provider.transfers.sendReturn(aReturn(reference), NO_EM)).toEqual({
      outcome: 'refused',
      reason: 'Monnify: FAILED: Insufficient balance',
    });
  });

  it("answers Monnify's first status: SUCCESS completed, PENDING_AUTHORIZATION accepted", async () => {
    standIn.state.disbursementStatus = 'SUCCESS';
    expect(await provider.transfers.sendReturn(aReturn(`ret_${process.pid}_now`), NO_EM)).toEqual({
      outcome: 'completed',
    });
    standIn.state.disbursementStatus = 'PENDING_AUTHORIZATION';
    expect(await provider.transfers.sendReturn(aReturn(`ret_${process.pid}_otp`), NO_EM)).toEqual({
      outcome: 'accepted',
    });
    standIn.state.disbursementStatus = 'PENDING';
  });

  it('refuses without a bank code or a name, asking Monnify nothing', async () => {
    for (const changes of [
      { bankCode: null },
      { bankCode: 'GTBank' },
      { name: null },
      { toAccount: '12345' },
    ]) {
      const reference = `ret_${process.pid}_${JSON.stringify(changes).replace(/[^a-z]/gi, '')}`;
      const outcome = await provider.transfers.sendReturn(aReturn(reference, changes), NO_EM);
      expect(outcome).toEqual({ outcome: 'refused', reason: expect.any(String) });
      expect(standIn.count('disburse', reference)).toBe(0);
    }
  });

  it('5xx is thrown (retried with the same reference); a refusal of a new reference is refused', async () => {
    const reference = `ret_${process.pid}_flaky`;
    standIn.failNext('disburse', 503);
    await expect(provider.transfers.sendReturn(aReturn(reference), NO_EM)).rejects.toThrow(
      ProviderUnavailableError,
    );
    expect(standIn.state.disbursements.has(reference)).toBe(false);
    standIn.failNext('disburse', 400);
    expect(await provider.transfers.sendReturn(aReturn(reference), NO_EM)).toEqual({
      outcome: 'refused',
      reason: 'Monnify refused disbursement (400): Stand-in failure 400',
    });
    expect(standIn.count('disbursementSummary', reference)).toBe(1);
  });
});
