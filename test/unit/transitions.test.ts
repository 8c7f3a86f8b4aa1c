import { canMove, checkMove, IllegalTransitionError, sqlMove } from '../../src/domain/transitions';
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

describe('moves as SQL (sqlMove), for rows written by statements', () => {
  it('checks a new row against the initial statuses and writes it as a literal', () => {
    expect(sqlMove(ONRAMP_LIFECYCLE, null, 'ACTIVE')).toEqual({
      set: "status = 'ACTIVE'",
      value: "'ACTIVE'",
      allowed: 'true',
    });
    expect(() => sqlMove(ONRAMP_LIFECYCLE, null, 'EXPIRED')).toThrow(
      'onramp cannot move from (new) to EXPIRED',
    );
    expect(() => sqlMove(ONRAMP_LIFECYCLE, null, { column: 'v.status' })).toThrow(
      'a new onramp starts in one status',
    );
  });

  it('keeps an update to the rows whose stored status the table lets move there', () => {
    expect(sqlMove(DEPOSIT_LIFECYCLE, 'd.status', 'FLAGGED').allowed).toBe(
      "d.status in ('PENDING_FX', 'PENDING_WITHDRAWAL', 'RETURNING', 'RETURNED')",
    );
    expect(() => sqlMove(ONRAMP_LIFECYCLE, 'status', 'ACTIVE')).toThrow(
      'no onramp status moves to ACTIVE',
    );
  });

  it('pairs each row with its own target, and may let a row keep its status', () => {
    expect(sqlMove(ONRAMP_LIFECYCLE, 'o.status', { column: 'v.status' })).toEqual({
      set: 'status = v.status',
      value: 'v.status',
      allowed:
        "(o.status, v.status) in (('ACTIVE', 'EXPIRED'), ('ACTIVE', 'COMPLETED'), ('ACTIVE', 'DEACTIVATED'))",
    });
    const keep = sqlMove(ONRAMP_LIFECYCLE, 'o.status', { column: 'v.status' }, { unchanged: true });
    expect(keep.allowed).toContain("('ACTIVE', 'ACTIVE')");
    expect(keep.allowed).toContain("('EXPIRED', 'EXPIRED')");
  });

  it('writes only the table’s own statuses into SQL', () => {
    const table = { ...ONRAMP_LIFECYCLE, initial: ["ACTIVE'; drop table x; --" as 'ACTIVE'] };
    expect(() => sqlMove(table, null, "ACTIVE'; drop table x; --" as 'ACTIVE')).toThrow(
      "onramp has no status ACTIVE'; drop table x; --",
    );
  });
});
