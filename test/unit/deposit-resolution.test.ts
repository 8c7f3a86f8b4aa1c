import {
  planResolution,
  ResolutionRefused,
  type ResolutionFacts,
} from '../../src/domain/deposit-resolution';

const flagged = (over: Partial<ResolutionFacts> = {}): ResolutionFacts => ({
  status: 'FLAGGED',
  converted: false,
  reversed: false,
  latestPayout: null,
  ...over,
});
const held = { status: 'CANCELLED' as const, released: false };

describe('planResolution (manual resolution of FLAGGED deposits)', () => {
  it('moves an unconverted deposit straight to PENDING_FX or RETURNING', () => {
    expect(planResolution(flagged(), 'settle')).toEqual({
      unwind: false,
      release: false,
      to: 'PENDING_FX',
    });
    expect(planResolution(flagged(), 'return')).toEqual({
      unwind: false,
      release: false,
      to: 'RETURNING',
    });
  });

  it('unwinds a converted deposit whose USD is held in suspense, both ways', () => {
    for (const status of ['CANCELLED', 'FAILED'] as const) {
      const facts = flagged({ converted: true, latestPayout: { status, released: false } });
      expect(planResolution(facts, 'settle')).toEqual({
        unwind: true,
        release: false,
        to: 'PENDING_FX',
      });
      expect(planResolution(facts, 'return')).toEqual({
        unwind: true,
        release: false,
        to: 'RETURNING',
      });
    }
  });

  it('refuses while the on-chain transfer is in flight', () => {
    for (const status of ['PENDING', 'SIGNED'] as const) {
      for (const reversed of [false, true]) {
        const facts = flagged({
          converted: true,
          reversed,
          latestPayout: { status, released: false },
        });
        expect(() => planResolution(facts, 'return')).toThrow(/in flight/);
        expect(() => planResolution(facts, 'settle')).toThrow(ResolutionRefused);
      }
    }
  });

  it('closes a reversed converted deposit only by return, releasing USD still held', () => {
    const reversedHeld = flagged({ converted: true, reversed: true, latestPayout: held });
    expect(() => planResolution(reversedHeld, 'settle')).toThrow(/bank reversed/);
    expect(planResolution(reversedHeld, 'return')).toEqual({
      unwind: false,
      release: true,
      to: 'FAILED',
    });
    // Paid out on-chain before the reversal: nothing is held, nothing to release.
    const paidOut = flagged({
      converted: true,
      reversed: true,
      latestPayout: { status: 'CONFIRMED', released: false },
    });
    expect(planResolution(paidOut, 'return')).toEqual({
      unwind: false,
      release: false,
      to: 'FAILED',
    });
  });

  it("closes an unconverted reversed deposit ('Reversal during return') only by return, as FAILED", () => {
    const reversed = flagged({ reversed: true });
    expect(() => planResolution(reversed, 'settle')).toThrow(/bank reversed/);
    expect(planResolution(reversed, 'return')).toEqual({
      unwind: false,
      release: false,
      to: 'FAILED',
    });
  });

  it('refuses a converted deposit with no USD in suspense (an inconsistency to investigate)', () => {
    expect(() =>
      planResolution(
        flagged({ converted: true, latestPayout: { ...held, released: true } }),
        'settle',
      ),
    ).toThrow(/ledger check/);
    expect(() => planResolution(flagged({ converted: true }), 'return')).toThrow(ResolutionRefused);
  });

  it('refuses anything not FLAGGED', () => {
    for (const status of [
      'PENDING_FX',
      'PENDING_WITHDRAWAL',
      'SETTLED',
      'FAILED',
      'REVERSED',
    ] as const) {
      expect(() => planResolution(flagged({ status }), 'settle')).toThrow(/Only FLAGGED/);
      expect(() => planResolution(flagged({ status }), 'return')).toThrow(/Only FLAGGED/);
    }
  });
});
