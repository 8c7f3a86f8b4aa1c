import { moveDeposit, type MovedColumns } from '../../src/deposits/deposit-move';
import { IllegalTransitionError } from '../../src/domain/transitions';

describe('moveDeposit: the one place a deposit status is set in memory', () => {
  const now = new Date('2026-06-01T12:00:00Z');
  const fresh = (): Partial<MovedColumns> & { id: string } => ({ id: 'dep_1', settledAt: null });

  it('gives a new deposit its first status with its reason, only an initial one', () => {
    const deposit = fresh();
    moveDeposit(deposit, 'FLAGGED', { reason: 'Payer name mismatch' }, now);
    expect(deposit).toEqual({
      id: 'dep_1',
      status: 'FLAGGED',
      flagReason: 'Payer name mismatch',
      failureReason: null,
      settledAt: null,
      updatedAt: now,
    });
    expect(() => moveDeposit(fresh(), 'SETTLED', {}, now)).toThrow(
      'deposit cannot move from (new) to SETTLED',
    );
    expect(() => moveDeposit(fresh(), 'FAILED', {}, now)).toThrow(
      'a move to FAILED needs a reason',
    );
  });

  it('moves on as the table allows, clearing the reason it leaves, and refuses the rest', () => {
    const deposit = fresh();
    moveDeposit(deposit, 'FLAGGED', { reason: 'Rejected by risk review' }, now);
    const later = new Date('2026-06-01T12:05:00Z');
    moveDeposit(deposit, 'RETURNING', {}, later);
    expect(deposit).toMatchObject({ status: 'RETURNING', flagReason: null, updatedAt: later });
    expect(() => moveDeposit(deposit, 'SETTLED', {}, now)).toThrow(IllegalTransitionError);
    expect(deposit).toMatchObject({ status: 'RETURNING', updatedAt: later });
    moveDeposit(deposit, 'RETURN_FAILED', {}, now);
    moveDeposit(deposit, 'RETURNING', {}, now);
    moveDeposit(deposit, 'RETURNED', {}, now);
    expect(deposit.status).toBe('RETURNED');
  });

  it('records when a deposit settles', () => {
    const deposit = fresh();
    moveDeposit(deposit, 'PENDING_FX', {}, now);
    expect(deposit.settledAt).toBeNull();
    moveDeposit(deposit, 'SETTLED', {}, now);
    expect(deposit).toMatchObject({ status: 'SETTLED', settledAt: now });
  });
});
