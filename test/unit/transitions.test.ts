import { canMove, checkMove, IllegalTransitionError } from '../../src/domain/transitions';
import { ONRAMP_LIFECYCLE } from '../../src/domain/onramp-status';
import { DEPOSIT_LIFECYCLE } from '../../src/domain/deposit-state-machine';

describe('status lifecycles as data (one rule for every aggregate)', () => {
  it('an onramp starts ACTIVE and leaves it once, for good', () => {
    expect(canMove(ONRAMP_LIFECYCLE, null, 'ACTIVE')).toBe(true);
    expect(canMove(ONRAMP_LIFECYCLE, null, 'EXPIRED')).toBe(false);
    for (const to of ['EXPIRED', 'COMPLETED', 'DEACTIVATED'] as const) {
      expect(canMove(ONRAMP_LIFECYCLE, 'ACTIVE', to)).toBe(true);
      expect(() => checkMove(ONRAMP_LIFECYCLE, to, 'ACTIVE')).toThrow(
        `onramp cannot move from ${to} to ACTIVE`,
      );
    }
    expect(canMove(ONRAMP_LIFECYCLE, 'ACTIVE', 'ACTIVE')).toBe(false);
  });

  it('names the subject and both ends of a refused move', () => {
    try {
      checkMove(DEPOSIT_LIFECYCLE, 'SETTLED', 'PENDING_FX');
      throw new Error('expected a refusal');
    } catch (error) {
      expect(error).toBeInstanceOf(IllegalTransitionError);
      expect(error).toMatchObject({ subject: 'deposit', from: 'SETTLED', to: 'PENDING_FX' });
    }
  });
});
