import { createHmac } from 'node:crypto';
import { ManualClock } from '../../src/clock';
import { HmacBankAdapter } from '../../src/adapters/bank/hmac-bank-adapter';
import { BankPayloadError, BankSignatureError } from '../../src/adapters/bank/bank-adapter';
import { DomainError, ErrorCode } from '../../src/domain/errors';

const SECRET = 'bank-secret-0123456789abcdef';
const NOW = new Date('2026-03-01T10:00:00Z');
const NOW_SECONDS = NOW.getTime() / 1000;

/** The documented scheme, written here independently of src/. */
function sign(secret: string, timestamp: number | string, body: string): string {
  return createHmac('sha256', secret).update(`${timestamp}.${body}`, 'utf8').digest('hex');
}

function headers(body: string, options: { secret?: string; timestamp?: number } = {}) {
  const timestamp = options.timestamp ?? NOW_SECONDS;
  return {
    'x-bank-timestamp': String(timestamp),
    'x-bank-signature': `v1=${sign(options.secret ?? SECRET, timestamp, body)}`,
  };
}

const received = (data: Record<string, unknown> = {}) =>
  JSON.stringify({
    event: 'transfer.received',
    data: {
      account_number: '0123456789',
      amount: '5000.50',
      currency: 'NGN',
      reference: 'BANKREF-1',
      ...data,
    },
  });

function adapter(secret: string | string[] = SECRET) {
  return new HmacBankAdapter({ secret, clock: new ManualClock(NOW) });
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

describe('HmacBankAdapter', () => {
  it('accepts a valid signature and maps a transfer to our vocabulary', () => {
    const body = received({
      sender_name: 'Ada Obi',
      sender_account_number: '9876543210',
      sender_bank: 'GTBank',
      transferred_at: '2026-03-01T09:59:00+01:00',
    });
    expect(adapter().parse(body, headers(body))).toEqual({
      type: 'transfer.received',
      transfer: {
        accountNumber: '0123456789',
        amountNgn: '5000.50',
        bankReference: 'BANKREF-1',
        senderName: 'Ada Obi',
        senderAccount: '9876543210',
        senderBank: 'GTBank',
        transferredAt: new Date('2026-03-01T08:59:00Z'),
      },
    });
  });

  it('verifies the exact bytes, given as a Buffer', () => {
    const body = received({ sender_name: 'Ngozi Ọkọ́nkwọ' });
    const event = adapter().parse(Buffer.from(body, 'utf8'), headers(body));
    expect(event.type).toBe('transfer.received');
  });

  it('parses a reversal', () => {
    const body = JSON.stringify({
      event: 'transfer.reversed',
      data: { reference: 'BANKREF-1', reversed_at: '2026-03-01T09:00:00Z' },
    });
    expect(adapter().parse(body, headers(body))).toEqual({
      type: 'transfer.reversed',
      bankReference: 'BANKREF-1',
      reversedAt: new Date('2026-03-01T09:00:00Z'),
    });
    const bare = JSON.stringify({ event: 'transfer.reversed', data: { reference: 'R2' } });
    expect(adapter().parse(bare, headers(bare))).toEqual({
      type: 'transfer.reversed',
      bankReference: 'R2',
    });
  });

  describe('signatures (401 unauthorized)', () => {
    const expectUnauthorized = (fn: () => unknown) => {
      const error = thrown(fn);
      expect(error).toBeInstanceOf(BankSignatureError);
      expect(error.code).toBe(ErrorCode.Unauthorized);
    };

    it('refuses a signature made with another secret', () => {
      const body = received();
      expectUnauthorized(() =>
        adapter().parse(body, headers(body, { secret: 'someone-elses-secret-123' })),
      );
    });

    it('refuses a tampered body', () => {
      const body = received();
      const tampered = body.replace('5000.50', '9000.50');
      expectUnauthorized(() => adapter().parse(tampered, headers(body)));
      expectUnauthorized(() => adapter().parse(`${body} `, headers(body)));
    });

    it('refuses a timestamp that does not match the signed one', () => {
      const body = received();
      const signed = headers(body);
      expectUnauthorized(() =>
        adapter().parse(body, { ...signed, 'x-bank-timestamp': String(NOW_SECONDS + 1) }),
      );
    });

    it('refuses stale and future timestamps beyond 300 s, accepts within', () => {
      const body = received();
      for (const skew of [-301, 301, -86_400]) {
        expectUnauthorized(() =>
          adapter().parse(body, headers(body, { timestamp: NOW_SECONDS + skew })),
        );
      }
      for (const skew of [-300, 300, -5]) {
        expect(adapter().parse(body, headers(body, { timestamp: NOW_SECONDS + skew })).type).toBe(
          'transfer.received',
        );
      }
    });

    it('uses the injected clock, not the system time', () => {
      const body = received();
      const clock = new ManualClock(NOW);
      const bank = new HmacBankAdapter({ secret: SECRET, clock });
      const signed = headers(body);
      expect(bank.parse(body, signed).type).toBe('transfer.received');
      clock.advance(301_000);
      expectUnauthorized(() => bank.parse(body, signed));
    });

    it('accepts any of several v1= values (the bank rotating its secret)', () => {
      const body = received();
      const old = sign('old-secret-0123456789', NOW_SECONDS, body);
      const current = sign(SECRET, NOW_SECONDS, body);
      const ts = String(NOW_SECONDS);
      for (const signature of [
        `v1=${old},v1=${current}`,
        `v1=${current}, v1=${old}`,
        `v0=deadbeef,v1=${current}`,
        `v1=${current.toUpperCase()}`,
      ]) {
        expect(
          adapter().parse(body, { 'x-bank-timestamp': ts, 'x-bank-signature': signature }).type,
        ).toBe('transfer.received');
      }
      expectUnauthorized(() =>
        adapter().parse(body, { 'x-bank-timestamp': ts, 'x-bank-signature': `v1=${old}` }),
      );
    });

    it('accepts our side holding two secrets during a rotation', () => {
      const body = received();
      const bank = adapter(['new-secret-0123456789', SECRET]);
      expect(bank.parse(body, headers(body)).type).toBe('transfer.received');
      expect(bank.parse(body, headers(body, { secret: 'new-secret-0123456789' })).type).toBe(
        'transfer.received',
      );
    });

    it('refuses missing or malformed headers', () => {
      const body = received();
      const signed = headers(body);
      expectUnauthorized(() => adapter().parse(body, {}));
      expectUnauthorized(() =>
        adapter().parse(body, { 'x-bank-signature': signed['x-bank-signature'] }),
      );
      expectUnauthorized(() =>
        adapter().parse(body, { 'x-bank-timestamp': signed['x-bank-timestamp'] }),
      );
      for (const signature of ['', 'v1=', 'v1=abc', 'sha256=' + sign(SECRET, NOW_SECONDS, body)]) {
        expectUnauthorized(() =>
          adapter().parse(body, { ...signed, 'x-bank-signature': signature }),
        );
      }
      for (const timestamp of ['abc', '1.5', '-1', `${NOW_SECONDS}000`]) {
        expectUnauthorized(() =>
          adapter().parse(body, {
            'x-bank-timestamp': timestamp,
            'x-bank-signature': `v1=${sign(SECRET, timestamp, body)}`,
          }),
        );
      }
    });

    it('checks the signature before reading the body', () => {
      const error = thrown(() => adapter().parse('not json', {}));
      expect(error.code).toBe(ErrorCode.Unauthorized);
    });
  });

  describe('bodies (400)', () => {
    const expectBadBody = (body: string, code: ErrorCode, name: string) => {
      const error = thrown(() => adapter().parse(body, headers(body)));
      expect(error).toBeInstanceOf(BankPayloadError);
      expect(error.code).toBe(code);
      expect(error.message).toContain(name);
    };
    const invalid = ErrorCode.InvalidParameter;
    const missing = ErrorCode.MissingParameter;

    it('refuses bodies that are not a JSON object', () => {
      expectBadBody('not json', invalid, 'body');
      expectBadBody('', invalid, 'body');
      expectBadBody('[]', invalid, 'body');
      expectBadBody('"transfer.received"', invalid, 'body');
      expectBadBody('null', invalid, 'body');
    });

    it('refuses missing or unknown event types', () => {
      expectBadBody(JSON.stringify({ data: {} }), missing, 'event');
      expectBadBody(JSON.stringify({ event: 'transfer.pending', data: {} }), invalid, 'event');
      expectBadBody(JSON.stringify({ event: 42, data: {} }), invalid, 'event');
    });

    it('refuses a missing or non-object data', () => {
      expectBadBody(JSON.stringify({ event: 'transfer.received' }), missing, 'data');
      expectBadBody(JSON.stringify({ event: 'transfer.received', data: 'x' }), invalid, 'data');
      expectBadBody(JSON.stringify({ event: 'transfer.reversed', data: [] }), invalid, 'data');
    });

    it('refuses missing fields of a transfer', () => {
      for (const field of ['account_number', 'amount', 'currency', 'reference']) {
        expectBadBody(received({ [field]: undefined }), missing, `data.${field}`);
      }
      expectBadBody(
        JSON.stringify({ event: 'transfer.reversed', data: {} }),
        missing,
        'data.reference',
      );
    });

    it('refuses amounts that are not positive decimal strings with at most 2 places', () => {
      for (const amount of [5000.5, '5000.505', '-5', '0', '0.00', '1e3', ' 5', 'abc', true]) {
        expectBadBody(received({ amount }), invalid, 'data.amount');
      }
    });

    it('refuses account numbers that are not 10 digits, the credited one and the payer’s', () => {
      for (const bad of [
        '012345678',
        '01234567890',
        '01234S6789',
        ' 0123456789',
        '0123-45678',
        '١٢٣٤٥٦٧٨٩٠',
        '=1+2345678',
      ]) {
        expectBadBody(received({ account_number: bad }), invalid, 'data.account_number');
        expectBadBody(
          received({ sender_account_number: bad }),
          invalid,
          'data.sender_account_number',
        );
      }
      expectBadBody(
        received({ sender_account_number: 9876543210 }),
        invalid,
        'data.sender_account_number',
      );
    });

    it('refuses a currency other than NGN', () => {
      for (const currency of ['USD', 'ngn', 'NGN ', 566]) {
        expectBadBody(received({ currency }), invalid, 'data.currency');
      }
    });

    it('refuses wrong types and bad dates', () => {
      expectBadBody(received({ account_number: 123 }), invalid, 'data.account_number');
      expectBadBody(received({ reference: ['x'] }), invalid, 'data.reference');
      expectBadBody(received({ sender_name: 7 }), invalid, 'data.sender_name');
      for (const at of ['yesterday', '2026-03-01', '2026-03-01T10:00:00', '2026-13-01T10:00:00Z']) {
        expectBadBody(received({ transferred_at: at }), invalid, 'data.transferred_at');
      }
      expectBadBody(
        JSON.stringify({ event: 'transfer.reversed', data: { reference: 'R', reversed_at: 5 } }),
        invalid,
        'data.reversed_at',
      );
    });

    it('ignores fields it does not know and nulls in optional ones', () => {
      const body = received({ sender_name: null, narration: 'hello', fee: '10.00' });
      const withExtra = JSON.stringify({ ...JSON.parse(body), id: 'evt_1' });
      const event = adapter().parse(withExtra, headers(withExtra));
      expect(event).toMatchObject({
        type: 'transfer.received',
        transfer: { amountNgn: '5000.50', senderName: null },
      });
      // The payer's account left out, null or empty: not known, not refused.
      for (const unknown of [undefined, null, '']) {
        const without = received({ sender_account_number: unknown });
        expect(adapter().parse(without, headers(without))).toMatchObject({
          transfer: { senderAccount: null },
        });
      }
    });
  });

  it('refuses to be built without a secret', () => {
    expect(() => new HmacBankAdapter({ secret: '', clock: new ManualClock() })).toThrow();
    expect(() => new HmacBankAdapter({ secret: [], clock: new ManualClock() })).toThrow();
  });
});
