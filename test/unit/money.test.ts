import fc from 'fast-check';
import {
  dec,
  fixedDownText,
  isDecimalString,
  toFixedDown,
  toFixedUp,
} from '../../src/domain/money';

describe('toFixedDown / toFixedUp', () => {
  it('rounds toward zero and away from zero at the given places', () => {
    expect(toFixedDown(dec('1.2345678'), 6)).toBe('1.234567');
    expect(toFixedUp(dec('1.2345678'), 6)).toBe('1.234568');
    expect(toFixedDown(dec('1.2345671'), 6)).toBe('1.234567');
    expect(toFixedUp(dec('1.2345671'), 6)).toBe('1.234568');
    expect(toFixedDown(dec('1507.5376891997'), 2)).toBe('1507.53');
    expect(toFixedUp(dec('1507.5376891997'), 2)).toBe('1507.54');
  });

  it('leaves exact values unchanged', () => {
    expect(toFixedDown(dec('1.234567'), 6)).toBe('1.234567');
    expect(toFixedUp(dec('1.234567'), 6)).toBe('1.234567');
    expect(toFixedUp(dec('0'), 2)).toBe('0.00');
  });

  it('pads with zeros to exactly the requested places', () => {
    expect(toFixedDown(dec('5'), 6)).toBe('5.000000');
    expect(toFixedUp(dec('5'), 6)).toBe('5.000000');
    expect(toFixedDown(dec('12.5'), 2)).toBe('12.50');
  });

  it('never renders exponent notation', () => {
    expect(toFixedDown(dec('1e-7'), 12)).toBe('0.000000100000');
    expect(toFixedUp(dec('1e-7'), 6)).toBe('0.000001');
    expect(toFixedDown(dec('1e21'), 2)).toBe('1000000000000000000000.00');
  });
});

describe('isDecimalString', () => {
  it.each([['0'], ['12.50'], ['1500'], ['0.5'], ['1.123456'], ['999999999999999999']])(
    'accepts %p',
    (value) => {
      expect(isDecimalString(value, 6)).toBe(true);
    },
  );

  it.each([
    ['-1'],
    ['1e5'],
    ['01'],
    ['1.'],
    ['.5'],
    ['1.1234567'],
    [' 1'],
    ['1 '],
    [''],
    ['+1'],
    ['1,000'],
    ['NaN'],
    ['Infinity'],
    ['0x10'],
  ])('rejects %p', (value) => {
    expect(isDecimalString(value, 6)).toBe(false);
  });

  it('honours maxPlaces', () => {
    expect(isDecimalString('1.12', 2)).toBe(true);
    expect(isDecimalString('1.123', 2)).toBe(false);
  });
});

describe('Dec arithmetic', () => {
  it('adds 0.1 and 0.2 exactly, unlike binary floats', () => {
    expect(0.1 + 0.2).not.toBe(0.3);
    expect(dec('0.1').plus(dec('0.2')).toString()).toBe('0.3');
    expect(dec('0.1').plus(dec('0.2')).eq(dec('0.3'))).toBe(true);
  });
});

describe('fixedDownText', () => {
  it('answers what toFixedDown answers, for any decimal text (seeded)', () => {
    const digits = (min: number, max: number) =>
      fc.array(fc.constantFrom(...'0000123459'), { minLength: min, maxLength: max });
    const text = fc
      .tuple(fc.boolean(), digits(1, 20), fc.option(digits(0, 9)), fc.boolean())
      .map(([negative, whole, fraction, exponent]) => {
        const body = `${whole.join('')}${fraction === null ? '' : `.${fraction.join('')}`}`;
        return `${negative ? '-' : ''}${body}${exponent ? 'e-3' : ''}`;
      });
    fc.assert(
      fc.property(text, fc.constantFrom(2, 6), (value, places) => {
        expect(fixedDownText(value, places)).toBe(toFixedDown(dec(value), places));
      }),
      { seed: 23, numRuns: 20_000 },
    );
  });

  it('keeps text PostgreSQL writes as it is, and rounds the rest down', () => {
    expect(fixedDownText('15000.00', 2)).toBe('15000.00');
    expect(fixedDownText('9.876543', 6)).toBe('9.876543');
    expect(fixedDownText('-0.50', 2)).toBe('-0.50');
    expect(fixedDownText('0.00', 2)).toBe('0.00');
    expect(fixedDownText('007.00', 2)).toBe('7.00');
    expect(fixedDownText('-0.00', 2)).toBe(toFixedDown(dec('-0.00'), 2));
    expect(fixedDownText('1.239', 2)).toBe('1.23');
    expect(fixedDownText('12', 2)).toBe('12.00');
  });
});
