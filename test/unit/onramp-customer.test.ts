import { randomBytes } from 'node:crypto';
import { SecretBox } from '../../src/crypto/secret-box';
import { DomainError, ErrorCode } from '../../src/domain/errors';
import { parseCreateOnramp } from '../../src/domain/onramp-input';
import { lastFour, parseCustomer, type CustomerInput } from '../../src/domain/onramp-customer';
import {
  customerColumns,
  customerSealContext,
  customerSummary,
} from '../../src/onramps/onramp-customer-store';

const BVN = '22212345678';
const NIN = '70123456789';

/** The parameter a refusal names, or a failure when the input was accepted. */
function refusal(input: CustomerInput): string {
  try {
    parseCustomer(input);
  } catch (error) {
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe(ErrorCode.InvalidParameter);
    return /^Invalid parameter (\S+):/.exec((error as Error).message)![1];
  }
  throw new Error(`accepted ${JSON.stringify(input)}`);
}

describe('parseCustomer', () => {
  it('is no record when absent or when every field is absent', () => {
    expect(parseCustomer(undefined)).toBeNull();
    expect(parseCustomer(null)).toBeNull();
    expect(parseCustomer({})).toBeNull();
    expect(parseCustomer({ firstName: null, lastName: null, phone: null, bvn: null })).toBeNull();
  });

  it('keeps the fields given, names trimmed and phone without spaces or dashes', () => {
    expect(
      parseCustomer({
        firstName: '  Adaeze ',
        lastName: 'Okafor',
        phone: '+234 803-123 4567',
        bvn: BVN,
        nin: NIN,
      }),
    ).toEqual({
      firstName: 'Adaeze',
      lastName: 'Okafor',
      phone: '+2348031234567',
      bvn: BVN,
      nin: NIN,
    });
    expect(parseCustomer({ nin: NIN })).toEqual({ nin: NIN });
    expect(parseCustomer({ firstName: 'Ọlábísí', lastName: "O'Neil-Ụzọ" })).toEqual({
      firstName: 'Ọlábísí',
      lastName: "O'Neil-Ụzọ",
    });
  });

  it('takes names up to 100 characters (after trimming) and refuses 101', () => {
    const hundred = 'A'.repeat(100);
    expect(parseCustomer({ firstName: ` ${hundred} ` })).toEqual({ firstName: hundred });
    expect(refusal({ firstName: `${hundred}A` })).toBe('customer.first_name');
    expect(refusal({ lastName: `${hundred}A` })).toBe('customer.last_name');
  });

  it('refuses names that are empty, blank or without a letter', () => {
    for (const name of ['', '   ', '12345', '--', '\u200b']) {
      expect(refusal({ firstName: name })).toBe('customer.first_name');
      expect(refusal({ lastName: name })).toBe('customer.last_name');
    }
  });

  it('takes 10-15 digit phones with an optional leading + and refuses the rest', () => {
    for (const phone of ['08031234567', '2348031234567', '+2348031234567', '0803 123 4567']) {
      expect(parseCustomer({ phone })?.phone).toMatch(/^\+?[0-9]{10,15}$/);
    }
    expect(parseCustomer({ phone: '123456789012345' })?.phone).toBe('123456789012345');
    for (const phone of ['', '123456789', '1234567890123456', '0803abc4567', '++2348031234567']) {
      expect(refusal({ phone })).toBe('customer.phone');
    }
    expect(refusal({ phone: '0803123456+7' })).toBe('customer.phone');
  });

  it('takes an 11-digit BVN or NIN and refuses 10, 12, letters, spaces and other digits', () => {
    expect(parseCustomer({ bvn: '00000000000' })).toEqual({ bvn: '00000000000' });
    for (const bad of [
      '2221234567',
      '222123456789',
      '2221234567a',
      'ABCDEFGHIJK',
      ' 22212345678',
      '22212345678 ',
      '222-1234567',
      '٢٢٢١٢٣٤٥٦٧٨', // Arabic-Indic digits: \d in some engines, not a BVN
      '',
    ]) {
      expect(refusal({ bvn: bad })).toBe('customer.bvn');
      expect(refusal({ nin: bad })).toBe('customer.nin');
    }
  });

  it('is checked as part of a create-onramp request', () => {
    const request = {
      type: 'PERMANENT',
      user: { email: 'ada@example.com' },
      settlement: { mode: 'MERCHANT_BALANCE' },
    };
    expect(parseCreateOnramp(request).customer).toBeNull();
    expect(parseCreateOnramp({ ...request, customer: { bvn: BVN } }).customer).toEqual({
      bvn: BVN,
    });
    expect(() => parseCreateOnramp({ ...request, customer: { bvn: '1' } })).toThrow(
      /customer\.bvn/,
    );
  });
});

describe('lastFour', () => {
  it('is the last 4 digits, or null when there is no number', () => {
    expect(lastFour(BVN)).toBe('5678');
    expect(lastFour(undefined)).toBeNull();
  });
});

describe('customer columns and summary', () => {
  const box = new SecretBox(randomBytes(32));

  it('stores nothing when there is no record', () => {
    const columns = customerColumns(box, 'onr_1', null);
    expect(columns).toEqual({
      customerSealed: null,
      customerFields: null,
      customerBvnLast4: null,
      customerNinLast4: null,
    });
    expect(customerSummary(columns)).toBeNull();
  });

  it('seals the whole record, bound to its onramp, and keeps only what is shown in plain', () => {
    const columns = customerColumns(box, 'onr_1', {
      phone: '+2348031234567',
      bvn: BVN,
      firstName: 'Adaeze',
    });
    expect(columns.customerSealed).toMatch(/^enc:v1:/);
    for (const secret of [BVN, '2348031234567', 'Adaeze']) {
      expect(columns.customerSealed).not.toContain(secret);
    }
    expect(JSON.parse(box.open(columns.customerSealed!, customerSealContext('onr_1')))).toEqual({
      first_name: 'Adaeze',
      phone: '+2348031234567',
      bvn: BVN,
    });
    expect(() => box.open(columns.customerSealed!, customerSealContext('onr_2'))).toThrow(
      /does not authenticate/,
    );
    expect(columns).toMatchObject({
      customerFields: ['first_name', 'phone', 'bvn'],
      customerBvnLast4: '5678',
      customerNinLast4: null,
    });
    expect(customerSummary(columns)).toEqual({
      fields: ['first_name', 'phone', 'bvn'],
      bvnLast4: '5678',
      ninLast4: null,
    });
  });

  it("lists the fields in the API's order whatever order the row holds", () => {
    expect(
      customerSummary({
        customerFields: ['nin', 'phone', 'last_name'],
        customerBvnLast4: null,
        customerNinLast4: '6789',
      }),
    ).toEqual({ fields: ['last_name', 'phone', 'nin'], bvnLast4: null, ninLast4: '6789' });
  });
});
