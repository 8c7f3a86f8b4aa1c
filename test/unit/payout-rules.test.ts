import {
  bumpedFees,
  fromBaseUnits,
  outageOutlasted,
  toBaseUnits,
} from '../../src/domain/payout-rules';

describe('payout amounts in base units', () => {
  it.each([
    ['16.079551', 16_079_551n],
    ['0.000001', 1n],
    ['1000', 1_000_000_000n],
    ['999999999999.999999', 999_999_999_999_999_999n],
  ])('%s is exactly %s base units and back', (amount, units) => {
    expect(toBaseUnits(amount)).toBe(units);
    expect(fromBaseUnits(units)).toBe(dec6(amount));
  });

  it('refuses a seventh decimal instead of rounding money away', () => {
    expect(() => toBaseUnits('1.0000001')).toThrow(RangeError);
    expect(() => toBaseUnits('-1')).toThrow(RangeError);
  });
});

function dec6(amount: string): string {
  const [whole, fraction = ''] = amount.split('.');
  return `${whole}.${fraction.padEnd(6, '0')}`;
}

describe('fee bump for a stuck transaction', () => {
  const previous = { maxFeePerGas: 1_000n, maxPriorityFeePerGas: 100n };

  it('raises both fees by more than the 10% nodes require', () => {
    const fees = bumpedFees(previous, { maxFeePerGas: 1n, maxPriorityFeePerGas: 1n });
    expect(fees.maxFeePerGas).toBe(1_251n);
    expect(fees.maxPriorityFeePerGas).toBe(126n);
    expect(fees.maxFeePerGas * 100n).toBeGreaterThan(previous.maxFeePerGas * 110n);
    expect(fees.maxPriorityFeePerGas * 100n).toBeGreaterThan(previous.maxPriorityFeePerGas * 110n);
  });

  it('follows the network when its current fees are higher still', () => {
    const fees = bumpedFees(previous, { maxFeePerGas: 50_000n, maxPriorityFeePerGas: 3_000n });
    expect(fees).toEqual({ maxFeePerGas: 50_000n, maxPriorityFeePerGas: 3_000n });
  });

  it('never offers a max fee below the priority fee', () => {
    const fees = bumpedFees(
      { maxFeePerGas: 100n, maxPriorityFeePerGas: 100n },
      { maxFeePerGas: 10n, maxPriorityFeePerGas: 900n },
    );
    expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(fees.maxPriorityFeePerGas);
  });
});

describe('chain outage maximum', () => {
  const since = new Date('2026-11-22T00:00:00Z');
  it('holds until the maximum has passed, then gives up', () => {
    expect(outageOutlasted(since, new Date('2026-11-22T23:59:59Z'), 86_400)).toBe(false);
    expect(outageOutlasted(since, new Date('2026-11-23T00:00:00Z'), 86_400)).toBe(true);
  });
});
