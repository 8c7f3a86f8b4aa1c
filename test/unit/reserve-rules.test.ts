import { dec } from '../../src/domain/money';
import {
  drawForReversal,
  holdFor,
  parseLiability,
  parseReserveTerms,
  releaseAt,
  splitSettlement,
  type OpenHold,
} from '../../src/domain/reserves';
import { DomainError } from '../../src/domain/errors';

const text = (value: { toFixed(places: number): string }) => value.toFixed(6);

describe('reserve hold of a settlement', () => {
  it('is amount x bps / 10,000, rounded down to 6 places', () => {
    expect(text(holdFor(dec('10.000000'), { percentBps: 1000, holdDays: 7 }))).toBe('1.000000');
    // 9.999999 x 10 % = 0.9999999: down, never up.
    expect(text(holdFor(dec('9.999999'), { percentBps: 1000, holdDays: 7 }))).toBe('0.999999');
    // 0.000009 x 1 bp = 0.0000000009: nothing is held.
    expect(text(holdFor(dec('0.000009'), { percentBps: 1, holdDays: 7 }))).toBe('0.000000');
    expect(text(holdFor(dec('123.456789'), { percentBps: 10_000, holdDays: 0 }))).toBe(
      '123.456789',
    );
    expect(text(holdFor(dec('123.456789'), { percentBps: 0, holdDays: 30 }))).toBe('0.000000');
    expect(text(holdFor(dec('123.456789'), null))).toBe('0.000000');
  });

  it('is due hold_days reserve days after the settlement', () => {
    const at = new Date('2026-11-29T10:00:00.000Z');
    expect(releaseAt(at, { percentBps: 1000, holdDays: 7 }, 86_400).toISOString()).toBe(
      '2026-12-06T10:00:00.000Z',
    );
    expect(releaseAt(at, { percentBps: 1000, holdDays: 7 }, 2).toISOString()).toBe(
      '2026-11-29T10:00:14.000Z',
    );
    expect(releaseAt(at, { percentBps: 1000, holdDays: 0 }, 86_400)).toEqual(at);
  });
});

describe('terms the operator sets', () => {
  it('accepts whole numbers in range, as numbers or digits', () => {
    expect(parseReserveTerms('1000', '7')).toEqual({ percentBps: 1000, holdDays: 7 });
    expect(parseReserveTerms(0, 0)).toEqual({ percentBps: 0, holdDays: 0 });
    expect(parseReserveTerms(10_000, 365)).toEqual({ percentBps: 10_000, holdDays: 365 });
    expect(parseLiability('merchant')).toBe('merchant');
    expect(parseLiability('operator')).toBe('operator');
  });

  it.each([
    ['-1', '7', 'percent_bps'],
    ['10001', '7', 'percent_bps'],
    ['10.5', '7', 'percent_bps'],
    ['1e3', '7', 'percent_bps'],
    ['ten', '7', 'percent_bps'],
    ['', '7', 'percent_bps'],
    [undefined, '7', 'percent_bps'],
    [-1, 7, 'percent_bps'],
    [1.5, 7, 'percent_bps'],
    ['1000', '366', 'hold_days'],
    ['1000', '-1', 'hold_days'],
    ['1000', 'week', 'hold_days'],
    [1000, 366, 'hold_days'],
  ])('refuses percent_bps %p, hold_days %p (invalid %s)', (bps, days, field) => {
    let error: unknown;
    try {
      parseReserveTerms(bps, days);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('invalid_parameter');
    expect((error as DomainError).message).toContain(field);
  });

  it('refuses a liability other than merchant or operator', () => {
    for (const bad of ['Merchant', 'both', '', null, 1]) {
      expect(() => parseLiability(bad)).toThrow(DomainError);
    }
  });
});

describe('a settlement when the merchant owes', () => {
  it('holds its reserve share first, then repays, and the rest is available', () => {
    const split = splitSettlement(dec('20'), dec('2'), dec('5'));
    expect([split.held, split.repaid, split.available].map(text)).toEqual([
      '2.000000',
      '5.000000',
      '13.000000',
    ]);
  });

  it('repays with all that is left after the hold when the debt is larger', () => {
    const split = splitSettlement(dec('20'), dec('2'), dec('50'));
    expect([split.held, split.repaid, split.available].map(text)).toEqual([
      '2.000000',
      '18.000000',
      '0.000000',
    ]);
  });

  it('owing nothing, repays nothing', () => {
    const split = splitSettlement(dec('20'), dec('0'), dec('0'));
    expect([split.held, split.repaid, split.available].map(text)).toEqual([
      '0.000000',
      '0.000000',
      '20.000000',
    ]);
  });
});

describe('a liable reversal draws', () => {
  const hold = (depositId: string, remaining: string, heldAt: string): OpenHold => ({
    depositId,
    remaining: dec(remaining),
    heldAt: new Date(heldAt),
  });
  const holds = [
    hold('dep_C', '3', '2026-11-03T00:00:00Z'),
    hold('dep_A', '1', '2026-11-01T00:00:00Z'),
    hold('dep_REV', '2', '2026-11-04T00:00:00Z'),
    hold('dep_B', '1.5', '2026-11-02T00:00:00Z'),
  ];
  const shape = (draw: ReturnType<typeof drawForReversal>) => ({
    fromHolds: draw.fromHolds.map((h) => [h.depositId, text(h.amount)]),
    fromAvailable: text(draw.fromAvailable),
    owed: text(draw.owed),
  });

  it("the reversed deposit's own hold first, then other holds oldest first", () => {
    expect(shape(drawForReversal(dec('4'), 'dep_REV', holds, dec('100')))).toEqual({
      fromHolds: [
        ['dep_REV', '2.000000'],
        ['dep_A', '1.000000'],
        ['dep_B', '1.000000'],
      ],
      fromAvailable: '0.000000',
      owed: '0.000000',
    });
  });

  it('then usd_available, then below zero', () => {
    expect(shape(drawForReversal(dec('20'), 'dep_REV', holds, dec('4')))).toEqual({
      fromHolds: [
        ['dep_REV', '2.000000'],
        ['dep_A', '1.000000'],
        ['dep_B', '1.500000'],
        ['dep_C', '3.000000'],
      ],
      fromAvailable: '4.000000',
      owed: '8.500000',
    });
  });

  it('with no holds, from available and then owed; a negative available gives nothing', () => {
    expect(shape(drawForReversal(dec('10'), 'dep_X', [], dec('3')))).toEqual({
      fromHolds: [],
      fromAvailable: '3.000000',
      owed: '7.000000',
    });
    expect(shape(drawForReversal(dec('10'), 'dep_X', [], dec('-2')))).toEqual({
      fromHolds: [],
      fromAvailable: '0.000000',
      owed: '10.000000',
    });
  });

  it('skips empty holds and breaks equal times by deposit id', () => {
    const same = [
      hold('dep_2', '1', '2026-11-01T00:00:00Z'),
      hold('dep_0', '0', '2026-10-01T00:00:00Z'),
      hold('dep_1', '1', '2026-11-01T00:00:00Z'),
    ];
    expect(shape(drawForReversal(dec('1.5'), 'dep_X', same, dec('0'))).fromHolds).toEqual([
      ['dep_1', '1.000000'],
      ['dep_2', '0.500000'],
    ]);
  });
});
