import { isValidNuban, nubanCheckDigit, nubanFor } from '../../src/domain/nuban';

// Weights 3,7,3 | 3,7,3,3,7,3,3,7,3 over bank code | serial; check = (10 - sum % 10) % 10.
const KNOWN: Array<[bankCode: string, serial: number, accountNumber: string]> = [
  // CBN worked example (First Bank): 0+7+3 | 3 + 12 + 35 + 21 = 81, check 9.
  ['011', 1457, '0000014579'],
  // Wema: 0+21+15 | 1*3 = 39, check 1.
  ['035', 1, '0000000011'],
  // Wema: 36 | 8*3 = 60, sum ends in 0 so the check digit is 0 (not 10).
  ['035', 8, '0000000080'],
  // GTBank: 0+35+24 | 3+14+9+12+35+18+21+56+27 = 254, check 6.
  ['058', 123_456_789, '1234567896'],
  // Largest serial: 10 | 9 * 39 = 361, check 9.
  ['011', 999_999_999, '9999999999'],
];
const KNOWN_NUMBERS = KNOWN.map(([bankCode, , accountNumber]) => [bankCode, accountNumber]);

describe('nubanCheckDigit', () => {
  it.each(KNOWN)('bank %s serial %p gives %s', (bankCode, serial, accountNumber) => {
    expect(nubanCheckDigit(bankCode, String(serial).padStart(9, '0'))).toBe(
      Number(accountNumber[9]),
    );
  });

  it('refuses a malformed bank code or serial', () => {
    expect(() => nubanCheckDigit('11', '000001457')).toThrow(RangeError);
    expect(() => nubanCheckDigit('011', '1457')).toThrow(RangeError);
    expect(() => nubanCheckDigit('011', '00000145a')).toThrow(RangeError);
  });
});

describe('nubanFor', () => {
  it.each(KNOWN)('bank %s serial %p is %s', (bankCode, serial, accountNumber) => {
    expect(nubanFor(bankCode, serial)).toBe(accountNumber);
  });

  it.each([[0], [-1], [1_000_000_000], [1.5], [Number.NaN], [Number.POSITIVE_INFINITY]])(
    'refuses serial %p',
    (serial) => {
      expect(() => nubanFor('011', serial)).toThrow(RangeError);
    },
  );

  it.each([['11'], ['0111'], ['01a'], [''], [' 11']])('refuses bank code %p', (bankCode) => {
    expect(() => nubanFor(bankCode, 1457)).toThrow(RangeError);
  });
});

describe('isValidNuban', () => {
  it.each(KNOWN_NUMBERS)('accepts bank %s number %s', (bankCode, accountNumber) => {
    expect(isValidNuban(bankCode, accountNumber)).toBe(true);
  });

  it('is bound to the bank code', () => {
    // 011 and 035 weigh their bank codes to 10 and 36: different check digits for a serial.
    expect(isValidNuban('035', '0000014579')).toBe(false);
    expect(isValidNuban('011', '0000000011')).toBe(false);
  });

  it.each(KNOWN_NUMBERS)(
    'bank %s: changing any one digit of %s invalidates it',
    (bankCode, number) => {
      let tried = 0;
      for (let position = 0; position < number.length; position++) {
        for (let digit = 0; digit <= 9; digit++) {
          if (String(digit) === number[position]) continue;
          const changed = number.slice(0, position) + digit + number.slice(position + 1);
          expect([changed, isValidNuban(bankCode, changed)]).toEqual([changed, false]);
          tried++;
        }
      }
      expect(tried).toBe(90);
    },
  );

  it.each([
    [''],
    ['000001457'],
    ['00000145790'],
    ['000001457a'],
    ['000001457 '],
    [' 000001457'],
    ['0000-14579'],
    ['+000014579'],
    ['０００００１４５７９'],
  ])('refuses malformed %p', (accountNumber) => {
    expect(isValidNuban('011', accountNumber)).toBe(false);
  });

  it('refuses a malformed bank code instead of throwing', () => {
    expect(isValidNuban('11', '0000014579')).toBe(false);
    expect(isValidNuban('0110', '0000014579')).toBe(false);
  });
});
