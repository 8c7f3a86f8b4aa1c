import { BankSignatureError } from '../../src/adapters/bank/bank-adapter';
import { MonnifyNotificationAdapter, signMonnifyBody } from '../../src/adapters/bank/monnify';
import { DOC_EVENT, DOC_HASH, DOC_SECRET, collection } from '../support/monnify-samples';

const SECRET = 'S3CRETKEYFORTESTS0123456789ABCDE';
const adapter = new MonnifyNotificationAdapter(SECRET);
const signed = (body: string, secret = SECRET) => ({
  'monnify-signature': signMonnifyBody(secret, body),
});
const parse = (body: string) => adapter.parse(Buffer.from(body, 'utf8'), signed(body));

/** The collection sample with `amountPaid` written as the raw JSON text given. */
const withAmount = (amountJson: string) =>
  JSON.stringify(collection()).replace(
    /"amountPaid":3000,"totalPayable"/,
    `"amountPaid":${amountJson},"totalPayable"`,
  );

describe('Monnify notification signature (monnify-signature, HMAC-SHA512 of the raw body)', () => {
  const docs = new MonnifyNotificationAdapter(DOC_SECRET);

  it("verifies Monnify's published hash over the compact bytes of its sample", () => {
    const compact = JSON.stringify(DOC_EVENT);
    expect(docs.parse(compact, { 'monnify-signature': DOC_HASH })).toEqual({
      type: 'ignored',
      reason: 'SUCCESSFUL_TRANSACTION of product OFFLINE_PAYMENT_AGENT, not a reserved account',
    });
    expect(docs.parse(compact, { 'monnify-signature': DOC_HASH.toUpperCase() }).type).toBe(
      'ignored',
    );
  });

  it('checks the bytes received: the pretty-printed sample does not match the compact hash', () => {
    const pretty = JSON.stringify(DOC_EVENT, null, 2);
    expect(() => docs.parse(pretty, { 'monnify-signature': DOC_HASH })).toThrow(BankSignatureError);
    // The same pretty bytes signed as sent are accepted: nothing is re-serialised.
    expect(docs.parse(pretty, signed(pretty, DOC_SECRET)).type).toBe('ignored');
  });

  it('refuses a missing, short, foreign or tampered signature before reading the body', () => {
    const body = JSON.stringify(collection());
    const good = signed(body)['monnify-signature'];
    const refusals: Record<string, string>[] = [
      {},
      { 'monnify-signature': '' },
      { 'monnify-signature': good.slice(0, 127) },
      { 'monnify-signature': `${good}00` },
      { 'monnify-signature': `${good.slice(0, 127)}${good.endsWith('0') ? '1' : '0'}` },
      { 'monnify-signature': 'z'.repeat(128) },
      signed(body, 'another secret key'),
    ];
    for (const headers of refusals) {
      expect(() => adapter.parse(body, headers)).toThrow(BankSignatureError);
    }
    expect(() =>
      adapter.parse(body.replace('3000', '9000'), { 'monnify-signature': good }),
    ).toThrow(BankSignatureError);
    // Unsigned garbage is a signature failure (401), not a payload one (400).
    expect(() => adapter.parse('not json', {})).toThrow(BankSignatureError);
  });
});

describe('SUCCESSFUL_TRANSACTION of a reserved account', () => {
  it("maps MN-EVT's sample to transfer.received", () => {
    expect(parse(JSON.stringify(collection()))).toEqual({
      type: 'transfer.received',
      transfer: {
        accountNumber: '6000140770',
        amountNgn: '3000.00',
        bankReference: 'MNFY|04|20211117112842|000170',
        senderName: 'Monnify Limited',
        senderAccount: '0065432190',
        // The sample's bankCode is "": no bank code, so no return can be sent to it.
        senderBank: null,
        // No zone in paidOn: Lagos time (UTC+01:00).
        transferredAt: new Date('2021-11-17T10:28:42.615Z'),
      },
    });
  });

  it.each([
    ['3000', '3000.00'],
    ['"5000.5"', '5000.50'],
    ['5000.5', '5000.50'],
    ['"180000.00"', '180000.00'],
    ['0.01', '0.01'],
  ])('reads amountPaid %s exactly as %s', (amountJson, expected) => {
    const event = parse(withAmount(amountJson));
    expect(event.type === 'transfer.received' && event.transfer.amountNgn).toBe(expected);
  });

  it.each([
    '5000.505',
    '"5000.505"',
    '5000.0000000000001',
    '0',
    '"0.00"',
    '-5',
    '1e3',
    '"12a"',
    'true',
    '{}',
    '100000000000.01',
  ])('refuses amountPaid %s', (amountJson) => {
    expect(() => parse(withAmount(amountJson))).toThrow(
      expect.objectContaining({
        name: 'BankPayloadError',
        message: expect.stringContaining('eventData.amountPaid'),
      }),
    );
  });

  it('refuses what the payload must carry: amount, currency NGN, the account paid, the reference', () => {
    const cases: [(data: Record<string, unknown>) => void, string][] = [
      [(d) => delete d.amountPaid, 'Missing required parameter: eventData.amountPaid'],
      [(d) => (d.currency = 'USD'), 'Invalid parameter eventData.currency: must be NGN'],
      [(d) => delete d.currency, 'Missing required parameter: eventData.currency'],
      [
        (d) => delete d.destinationAccountInformation,
        'eventData.destinationAccountInformation.accountNumber',
      ],
      [
        (d) => (d.destinationAccountInformation = { accountNumber: '60001' }),
        'must be a 10-digit account number',
      ],
      [
        (d) => delete d.transactionReference,
        'Missing required parameter: eventData.transactionReference',
      ],
      [(d) => (d.transactionReference = 'MNFY 04'), 'visible ASCII'],
    ];
    for (const [change, message] of cases) {
      const event = collection();
      change(event.eventData as unknown as Record<string, unknown>);
      expect(() => parse(JSON.stringify(event))).toThrow(
        expect.objectContaining({ message: expect.stringContaining(message) }),
      );
    }
  });

  it('keeps a masked or odd payer account as unknown (no return can go to it)', () => {
    const event = collection();
    event.eventData.paymentSourceInformation[0]!.accountNumber = '******4872';
    event.eventData.paymentSourceInformation[0]!.bankCode = '000015';
    const parsed = parse(JSON.stringify(event));
    expect(parsed.type === 'transfer.received' && parsed.transfer).toMatchObject({
      senderAccount: null,
      senderBank: '000015',
    });
  });

  it('ignores payments that are not reserved-account transfers, or not paid', () => {
    const card = collection();
    card.eventData.product.type = 'WEB_SDK';
    expect(parse(JSON.stringify(card)).type).toBe('ignored');
    const pending = collection();
    pending.eventData.paymentStatus = 'PENDING';
    expect(parse(JSON.stringify(pending))).toEqual({
      type: 'ignored',
      reason: 'SUCCESSFUL_TRANSACTION with paymentStatus PENDING',
    });
  });
});
