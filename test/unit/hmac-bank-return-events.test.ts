import { createHmac } from 'node:crypto';
import { ManualClock } from '../../src/clock';
import { HmacBankAdapter } from '../../src/adapters/bank/hmac-bank-adapter';
import { returnNotificationBody } from '../../src/adapters/bank/http-bank-notifier';
import { BankPayloadError, BankSignatureError } from '../../src/adapters/bank/bank-adapter';
import { DomainError, ErrorCode } from '../../src/domain/errors';

const SECRET = 'bank-secret-0123456789abcdef';
const NOW = new Date('2026-03-01T10:00:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;

/** The documented scheme, written here independently of src/. */
function headers(body: string, secret = SECRET, timestamp = NOW_SECONDS) {
  const hex = createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
  return { 'x-bank-timestamp': String(timestamp), 'x-bank-signature': `v1=${hex}` };
}

const adapter = () => new HmacBankAdapter({ secret: SECRET, clock: new ManualClock(NOW) });
const body = (event: string, data: unknown) => JSON.stringify({ event, data });

function thrown(fn: () => unknown): DomainError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    return error as DomainError;
  }
  throw new Error('expected an error');
}

describe('HmacBankAdapter: the outcome of a return to the payer', () => {
  it('parses transfer.return_completed, with or without completed_at', () => {
    const full = body('transfer.return_completed', {
      reference: 'ret_01',
      completed_at: '2026-03-01T09:59:00+01:00',
      extra: 'ignored',
    });
    expect(adapter().parse(full, headers(full))).toEqual({
      type: 'transfer.return_completed',
      reference: 'ret_01',
      completedAt: new Date('2026-03-01T08:59:00Z'),
    });
    const bare = body('transfer.return_completed', { reference: 'ret_02' });
    expect(adapter().parse(bare, headers(bare))).toEqual({
      type: 'transfer.return_completed',
      reference: 'ret_02',
    });
  });

  it('parses transfer.return_failed with its reason', () => {
    const text = body('transfer.return_failed', { reference: 'ret_03', reason: 'Account closed' });
    expect(adapter().parse(Buffer.from(text), headers(text))).toEqual({
      type: 'transfer.return_failed',
      reference: 'ret_03',
      reason: 'Account closed',
    });
  });

  it('refuses missing and mistyped fields (400)', () => {
    const cases: Array<[string, unknown, ErrorCode, string]> = [
      ['transfer.return_completed', {}, ErrorCode.MissingParameter, 'data.reference'],
      [
        'transfer.return_completed',
        { reference: '' },
        ErrorCode.MissingParameter,
        'data.reference',
      ],
      ['transfer.return_completed', { reference: 7 }, ErrorCode.InvalidParameter, 'data.reference'],
      [
        'transfer.return_completed',
        { reference: 'ret_1', completed_at: '2026-03-01T09:00:00' },
        ErrorCode.InvalidParameter,
        'data.completed_at',
      ],
      ['transfer.return_failed', { reference: 'ret_1' }, ErrorCode.MissingParameter, 'data.reason'],
      ['transfer.return_failed', { reason: 'x' }, ErrorCode.MissingParameter, 'data.reference'],
      [
        'transfer.return_failed',
        { reference: 'ret_1', reason: ['x'] },
        ErrorCode.InvalidParameter,
        'data.reason',
      ],
      ['transfer.return_failed', null, ErrorCode.MissingParameter, 'data'],
      ['transfer.return_pending', { reference: 'ret_1' }, ErrorCode.InvalidParameter, 'event'],
    ];
    for (const [event, data, code, name] of cases) {
      const text = body(event, data);
      const error = thrown(() => adapter().parse(text, headers(text)));
      expect(error).toBeInstanceOf(BankPayloadError);
      expect({ event, data, code: error.code }).toEqual({ event, data, code });
      expect(error.message).toContain(name);
    }
  });

  it('refuses a bad signature or a stale timestamp (401) before reading the body', () => {
    const text = body('transfer.return_completed', { reference: 'ret_1' });
    for (const given of [
      headers(text, 'someone-elses-secret-123'),
      headers(text, SECRET, NOW_SECONDS - 301),
      headers(body('transfer.return_completed', { reference: 'ret_2' })),
      {},
    ]) {
      const error = thrown(() => adapter().parse(text, given));
      expect(error).toBeInstanceOf(BankSignatureError);
      expect(error.code).toBe(ErrorCode.Unauthorized);
    }
  });

  it("the sandbox bank's HTTP body is one the adapter parses back to the same event", () => {
    for (const event of [
      { type: 'transfer.return_completed' as const, reference: 'ret_9' },
      {
        type: 'transfer.return_completed' as const,
        reference: 'ret_9',
        completedAt: new Date('2026-03-01T09:00:00Z'),
      },
      { type: 'transfer.return_failed' as const, reference: 'ret_9', reason: 'Refused' },
    ]) {
      const text = returnNotificationBody(event);
      expect(adapter().parse(text, headers(text))).toEqual(event);
    }
  });
});
