import { dec } from '../../src/domain/money';
import { returnFee, returnedToPayer } from '../../src/domain/return-fee';

describe('the return fee (RETURN_FEE_NGN, flat NGN, at most the deposit)', () => {
  it('takes the configured fee and gives the payer the rest, to the kobo', () => {
    expect(returnFee(dec('50000.00'), dec('100')).toFixed(2)).toBe('100.00');
    expect(returnedToPayer(dec('50000.00'), dec('100.50')).toFixed(2)).toBe('49899.50');
    // Decimal, not float: 0.1 + 0.2 style sums stay exact.
    expect(returnedToPayer(dec('0.30'), dec('0.10')).toFixed(2)).toBe('0.20');
  });

  it('charges nothing by default', () => {
    expect(returnFee(dec('1234.56'), dec('0')).toFixed(2)).toBe('0.00');
    expect(returnedToPayer(dec('1234.56'), dec('0')).toFixed(2)).toBe('1234.56');
  });

  it('never charges more than the deposit: the payer then gets nothing back', () => {
    expect(returnFee(dec('80.00'), dec('100')).toFixed(2)).toBe('80.00');
    expect(returnedToPayer(dec('80.00'), dec('100')).toFixed(2)).toBe('0.00');
  });

  it('refuses a negative fee', () => {
    expect(() => returnFee(dec('10'), dec('-1'))).toThrow(RangeError);
  });
});
