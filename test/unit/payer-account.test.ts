import {
  isPayerAccount,
  PAYER_ACCOUNT_ATTEMPTS,
  typedAccountNumber,
} from '../../src/domain/payer-account';

describe('the payer’s account number on the resolution page', () => {
  it('takes 10 digits, grouped with spaces or hyphens as people write them', () => {
    expect(typedAccountNumber('0123456789')).toBe('0123456789');
    expect(typedAccountNumber(' 012 345-6789 ')).toBe('0123456789');
  });

  it('refuses anything else as no number at all (not a guess)', () => {
    for (const value of [
      undefined,
      null,
      '',
      '6789',
      '012345678',
      '01234567890',
      '01234S6789',
      '١٢٣٤٥٦٧٨٩٠',
      '0123456789'.repeat(5),
      ['0123456789'],
      123456789,
    ]) {
      expect(typedAccountNumber(value)).toBeNull();
    }
  });

  it('matches the stored sender account exactly; an unknown sender matches nothing', () => {
    expect(isPayerAccount('0123456789', '0123456789')).toBe(true);
    expect(isPayerAccount('0123456789', '0123456788')).toBe(false);
    expect(isPayerAccount('0123456789', '1123456789')).toBe(false);
    expect(isPayerAccount(null, '0123456789')).toBe(false);
    expect(isPayerAccount('', '0123456789')).toBe(false);
  });

  it('allows a few wrong numbers per deposit, no more', () => {
    expect(PAYER_ACCOUNT_ATTEMPTS).toBe(5);
  });
});
