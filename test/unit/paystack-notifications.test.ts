import { BankPayloadError, BankSignatureError } from '../../src/adapters/bank/bank-adapter';
import { PaystackNotificationAdapter } from '../../src/adapters/bank/paystack/paystack-notifications';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import {
  chargeSuccessData,
  sampleCharge,
  signPaystack,
  signedNotification,
  transferData,
  type Json,
  type SampleTransfer,
} from '../support/paystack-samples';

const SECRET = 'sk_test_0123456789abcdef0123456789abcdef';
const adapter = new PaystackNotificationAdapter(SECRET);

const OUR_RETURN = 'ret_01J9ZK3M4N5P6Q7R8S9T0VWXYZ';

function parse(event: string, data: unknown) {
  const { rawBody, headers } = signedNotification(SECRET, event, data);
  return adapter.parse(Buffer.from(rawBody), headers);
}

function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected an error');
}

/** charge.success `data` (the documented sample) with fields replaced at the top level. */
function charge(changes: Json = {}, authorization: Json = {}): Json {
  const data = chargeSuccessData(sampleCharge());
  return {
    ...data,
    ...changes,
    authorization: { ...(data.authorization as Json), ...authorization },
  };
}

function transfer(changes: Partial<SampleTransfer> = {}): Json {
  return transferData({
    id: 860703114,
    transferCode: 'TRF_v5tip3zx8nna9o78',
    reference: OUR_RETURN.toLowerCase(),
    amount: 100000,
    status: 'success',
    reason: 'Bonus for the week',
    recipientCode: 'RCP_gd9vgag7n5lr5ix',
    recipientName: 'Jekanmo Padie',
    accountNumber: '9876543210',
    bankCode: '044',
    bankName: 'Access Bank',
    createdAt: '2025-08-04T10:32:40.000Z',
    transferredAt: '2025-08-04T10:33:00.000Z',
    ...changes,
  });
}

describe('PaystackNotificationAdapter: the signature', () => {
  // Paystack's sample is pretty-printed: the bytes as sent, spaces and all, are what is signed.
  const raw = `{  \n  "event":"charge.success",\n  "data": ${JSON.stringify(charge(), null, 2)}\n}`;

  it('accepts the hex HMAC-SHA512 of the raw bytes, in either case', () => {
    const signature = signPaystack(SECRET, raw);
    expect(adapter.parse(Buffer.from(raw), { 'x-paystack-signature': signature }).type).toBe(
      'transfer.received',
    );
    expect(adapter.parse(raw, { 'x-paystack-signature': signature.toUpperCase() }).type).toBe(
      'transfer.received',
    );
  });

  it('refuses a body re-serialised after signing (Paystack signed other bytes)', () => {
    const signature = signPaystack(SECRET, raw);
    const reserialised = JSON.stringify(JSON.parse(raw));
    expect(reserialised).not.toBe(raw);
    const error = thrown(() => adapter.parse(reserialised, { 'x-paystack-signature': signature }));
    expect(error).toBeInstanceOf(BankSignatureError);
    expect(error.code).toBe(ErrorCode.Unauthorized);
  });

  it.each([
    ['missing', {}],
    ['empty', { 'x-paystack-signature': '' }],
    ['signed with another key', { 'x-paystack-signature': signPaystack('sk_test_other', raw) }],
    ['a SHA-256 length', { 'x-paystack-signature': 'ab'.repeat(32) }],
    ['not hex', { 'x-paystack-signature': 'zz'.repeat(64) }],
    ['one character short', { 'x-paystack-signature': signPaystack(SECRET, raw).slice(1) }],
  ])('refuses a signature that is %s with 401, before reading the body', (_why, headers) => {
    const error = thrown(() => adapter.parse(raw, headers));
    expect(error).toBeInstanceOf(BankSignatureError);
    expect(error.code).toBe(ErrorCode.Unauthorized);
  });

  it('checks the signature before the body: unsigned malformed JSON is 401, not 400', () => {
    const error = thrown(() =>
      adapter.parse('{not json', { 'x-paystack-signature': 'ab'.repeat(64) }),
    );
    expect(error).toBeInstanceOf(BankSignatureError);
  });
});

describe('PaystackNotificationAdapter: charge.success into a dedicated account', () => {
  it('maps the documented sample to transfer.received (masked payer account left out)', () => {
    expect(parse('charge.success', charge())).toEqual({
      type: 'transfer.received',
      transfer: {
        accountNumber: '9930000902',
        amountNgn: '100.00',
        bankReference: 'qTPrJoy9Bx',
        senderName: 'RANDALL AKANBI HORTON',
        senderAccount: null,
        senderBank: 'First City Monument Bank',
        transferredAt: new Date('2016-09-30T21:10:19.000Z'),
      },
    });
  });

  it('passes the payer account on when Paystack sends all 10 digits', () => {
    const event = parse('charge.success', charge({}, { sender_bank_account_number: '0123456789' }));
    expect(event.type === 'transfer.received' && event.transfer.senderAccount).toBe('0123456789');
  });

  it.each([
    [1, '0.01'],
    [10, '0.10'],
    [1000050, '10000.50'],
    [123456789, '1234567.89'],
    [Number.MAX_SAFE_INTEGER, '90071992547409.91'],
  ])('converts %d kobo to exactly %s NGN', (kobo, ngn) => {
    const event = parse('charge.success', charge({ amount: kobo }));
    expect(event.type === 'transfer.received' && event.transfer.amountNgn).toBe(ngn);
  });

  it('takes a top-level channel missing when the authorization says dedicated_nuban', () => {
    const { channel: _channel, ...data } = charge();
    expect(parse('charge.success', data).type).toBe('transfer.received');
  });

  it.each<[string, Json, Json, string]>([
    ['a fraction of a kobo', { amount: 100.5 }, {}, 'Invalid parameter data.amount'],
    ['a negative amount', { amount: -10000 }, {}, 'Invalid parameter data.amount'],
    ['a zero amount', { amount: 0 }, {}, 'Invalid parameter data.amount'],
    ['an amount as a string', { amount: '10000' }, {}, 'Invalid parameter data.amount'],
    ['an oversized amount', { amount: 1e30 }, {}, 'Invalid parameter data.amount'],
    ['an amount past 2^53', { amount: 2 ** 53 }, {}, 'Invalid parameter data.amount'],
    ['no amount', { amount: null }, {}, 'Missing required parameter: data.amount'],
    ['the wrong currency', { currency: 'USD' }, {}, 'Invalid parameter data.currency'],
    ['no currency', { currency: null }, {}, 'Missing required parameter: data.currency'],
    ['a status other than success', { status: 'reversed' }, {}, 'Invalid parameter data.status'],
    ['no reference', { reference: '' }, {}, 'Missing required parameter: data.reference'],
    ['a numeric reference', { reference: 12 }, {}, 'Invalid parameter data.reference'],
    ['a paid_at that is no date', { paid_at: 'yesterday' }, {}, 'Invalid parameter data.paid_at'],
    [
      'a masked receiving account',
      {},
      { receiver_bank_account_number: 'XXXXXX0902' },
      'receiver_bank_account_number',
    ],
    [
      'a 9-digit receiving account',
      {},
      { receiver_bank_account_number: '993000090' },
      'receiver_bank_account_number',
    ],
    [
      'a numeric receiving account',
      {},
      { receiver_bank_account_number: 9930000902 },
      'receiver_bank_account_number',
    ],
    [
      'no receiving account',
      {},
      { receiver_bank_account_number: null },
      'Missing required parameter',
    ],
    ['a sender name that is not text', {}, { sender_name: { x: 1 } }, 'sender_name'],
  ])('refuses %s with 400', (_why, changes, authorization, message) => {
    const error = thrown(() => parse('charge.success', charge(changes, authorization)));
    expect(error).toBeInstanceOf(BankPayloadError);
    expect([ErrorCode.InvalidParameter, ErrorCode.MissingParameter]).toContain(error.code);
    expect(error.message).toContain(message);
  });

  it('refuses an authorization that is not an object', () => {
    const error = thrown(() => parse('charge.success', { ...charge(), authorization: 'x' }));
    expect(error.message).toBe('Invalid parameter data.authorization: must be a JSON object');
  });
});

describe('PaystackNotificationAdapter: bodies that are not a notification', () => {
  const signed = (raw: string) =>
    adapter.parse(raw, { 'x-paystack-signature': signPaystack(SECRET, raw) });

  it.each([
    ['malformed JSON', '{"event":"charge.success",', 'Invalid parameter body: is not valid JSON'],
    ['a JSON array', '[1,2]', 'Invalid parameter body: must be a JSON object'],
    ['no event', '{"data":{}}', 'Missing required parameter: event'],
    ['a numeric event', '{"event":5,"data":{}}', 'Invalid parameter event: must be a string'],
    ['no data', '{"event":"charge.success"}', 'Missing required parameter: data'],
    [
      'data that is a list',
      '{"event":"charge.success","data":[]}',
      'Invalid parameter data: must be a JSON object',
    ],
  ])('refuses %s with 400', (_why, raw, message) => {
    const error = thrown(() => signed(raw));
    expect(error).toBeInstanceOf(BankPayloadError);
    expect(error.message).toBe(message);
  });
});

describe('PaystackNotificationAdapter: what is not ours is acknowledged, not refused', () => {
  it('ignores a card charge.success (the documented sample: channel card)', () => {
    expect(parse('charge.success', charge({ channel: 'card' }))).toEqual({
      type: 'ignored',
      reason: 'charge.success on channel card',
    });
  });

  it('ignores event types we do not act on (documented: customeridentification.success)', () => {
    const event = parse('customeridentification.success', {
      customer_id: '9387490384',
      customer_code: 'CUS_xnxdt6s1zg1f4nx',
      email: 'bojack@horsinaround.com',
      identification: { country: 'NG', type: 'bvn', value: '200*****677' },
    });
    expect(event.type).toBe('ignored');
  });

  it("ignores a transfer that is not one of our returns (the sample's acv_ reference)", () => {
    const event = parse(
      'transfer.success',
      transfer({ reference: 'acv_9ee55786-2323-4760-98e2-6380c9cb3f68' }),
    );
    expect(event.type).toBe('ignored');
  });
});

describe('PaystackNotificationAdapter: the outcomes of our returns', () => {
  it('maps transfer.success to return_completed with our reference', () => {
    expect(parse('transfer.success', transfer())).toEqual({
      type: 'transfer.return_completed',
      reference: OUR_RETURN,
      completedAt: new Date('2025-08-04T10:33:00.000Z'),
    });
  });

  it('leaves completedAt out when transferred_at is null (as in the sample)', () => {
    expect(parse('transfer.success', transfer({ transferredAt: null }))).toEqual({
      type: 'transfer.return_completed',
      reference: OUR_RETURN,
    });
  });

  it.each([
    ['transfer.failed', 'Paystack could not send the transfer'],
    ['transfer.reversed', "Paystack reversed the transfer (the payer's bank could not take it)"],
  ])('maps %s to return_failed', (event, reason) => {
    expect(parse(event, transfer({ status: event.slice(9) }))).toEqual({
      type: 'transfer.return_failed',
      reference: OUR_RETURN,
      reason,
    });
  });

  it('refuses a transfer event without a reference', () => {
    const error = thrown(() => parse('transfer.failed', { ...transfer(), reference: null }));
    expect(error.message).toBe('Missing required parameter: data.reference');
  });
});
