import { BankPayloadError } from '../../src/adapters/bank/bank-adapter';
import { MonnifyNotificationAdapter, signMonnifyBody } from '../../src/adapters/bank/monnify';
import { collection, disbursement } from '../support/monnify-samples';

const SECRET = 'S3CRETKEYFORTESTS0123456789ABCDE';
const adapter = new MonnifyNotificationAdapter(SECRET);
const parse = (body: string) =>
  adapter.parse(Buffer.from(body, 'utf8'), { 'monnify-signature': signMonnifyBody(SECRET, body) });

describe('disbursement notifications (our returns)', () => {
  it('maps SUCCESSFUL, FAILED and REVERSED_DISBURSEMENT by our reference', () => {
    expect(parse(JSON.stringify(disbursement('SUCCESSFUL_DISBURSEMENT', 'SUCCESS')))).toEqual({
      type: 'transfer.return_completed',
      reference: 'ref1615947809303',
      completedAt: new Date('2021-03-17T02:23:38Z'),
    });
    const insufficient =
      'You do not have sufficient balance to process this request. Please fund your account and try again.';
    expect(
      parse(
        JSON.stringify(
          disbursement('FAILED_DISBURSEMENT', 'FAILED', { transactionDescription: insufficient }),
        ),
      ),
    ).toEqual({
      type: 'transfer.return_failed',
      reference: 'ref1615947809303',
      reason: `Monnify: ${insufficient}`,
    });
    expect(parse(JSON.stringify(disbursement('REVERSED_DISBURSEMENT', 'REVERSED')))).toMatchObject({
      type: 'transfer.return_failed',
      reason: expect.stringMatching(/^Monnify reversed the transfer/),
    });
  });

  it('refuses one without our reference, or whose status contradicts its event type', () => {
    expect(() =>
      parse(JSON.stringify(disbursement('SUCCESSFUL_DISBURSEMENT', 'SUCCESS', { reference: '' }))),
    ).toThrow('Missing required parameter: eventData.reference');
    expect(() => parse(JSON.stringify(disbursement('SUCCESSFUL_DISBURSEMENT', 'FAILED')))).toThrow(
      BankPayloadError,
    );
  });
});

describe('other and hostile bodies', () => {
  it.each([
    'SETTLEMENT',
    'SUCCESSFUL_REFUND',
    'REJECTED_PAYMENT',
    'LOW_BALANCE_ALERT',
    'toString',
    '__proto__',
  ])('acknowledges and ignores %s', (eventType) => {
    expect(parse(JSON.stringify({ eventType, eventData: { amount: '1199.00' } })).type).toBe(
      'ignored',
    );
  });

  it.each([
    ['not JSON', 'not json', 'body'],
    ['an array', '[1,2]', 'body'],
    ['trailing text', '{"eventType":"X","eventData":{}} x', 'body'],
    [
      'duplicate keys',
      '{"eventType":"SETTLEMENT","eventType":"SUCCESSFUL_TRANSACTION","eventData":{}}',
      'body',
    ],
    [
      'deep nesting',
      `{"eventType":"X","eventData":${'['.repeat(10_000)}${']'.repeat(10_000)}}`,
      'body',
    ],
    ['no eventType', '{"eventData":{}}', 'eventType'],
    ['a numeric eventType', '{"eventType":5,"eventData":{}}', 'eventType'],
    ['no eventData', '{"eventType":"SUCCESSFUL_TRANSACTION"}', 'eventData'],
    ['a string eventData', '{"eventType":"SUCCESSFUL_TRANSACTION","eventData":"x"}', 'eventData'],
  ])('answers %s with a payload error', (_what, body, name) => {
    expect(() => parse(body)).toThrow(
      expect.objectContaining({ name: 'BankPayloadError', message: expect.stringContaining(name) }),
    );
  });

  it('refuses invalid UTF-8 and does not let __proto__ keys reach prototypes', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"eventType":"'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('","eventData":{}}'),
    ]);
    expect(() =>
      adapter.parse(bytes, { 'monnify-signature': signMonnifyBody(SECRET, bytes) }),
    ).toThrow(BankPayloadError);
    const event = collection() as unknown as Record<string, Record<string, unknown>>;
    const body = JSON.stringify(event).replace(
      '"metaData":{}',
      '"metaData":{"__proto__":{"polluted":true}}',
    );
    expect(parse(body).type).toBe('transfer.received');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
