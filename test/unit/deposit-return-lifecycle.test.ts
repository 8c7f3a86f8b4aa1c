import {
  DEPOSIT_RETURN_LIFECYCLE,
  DEPOSIT_RETURN_STATUSES,
} from '../../src/domain/deposit-return-lifecycle';
import { IllegalTransitionError } from '../../src/domain/transitions';
import { moveDepositReturn } from '../../src/deposits/deposit-return-transitions';
import { describeLifecycle } from '../support/lifecycle-table';

describeLifecycle(DEPOSIT_RETURN_LIFECYCLE, DEPOSIT_RETURN_STATUSES, [
  [null, 'PENDING'],
  ['PENDING', 'SENT'],
  ['PENDING', 'COMPLETED'],
  ['PENDING', 'FAILED'],
  ['PENDING', 'CANCELLED'],
  ['SENT', 'SENT'],
  ['SENT', 'COMPLETED'],
  ['SENT', 'FAILED'],
]);

describe('moveDepositReturn: the one place a return attempt status is written (SQL)', () => {
  it('writes a new attempt PENDING', () => {
    expect(moveDepositReturn(null, 'PENDING').value).toBe("'PENDING'");
    expect(() => moveDepositReturn(null, 'SENT')).toThrow(IllegalTransitionError);
  });

  it('checks the move from the status read before writing, and keeps the update to it', () => {
    expect(moveDepositReturn('SENT', 'COMPLETED')).toMatchObject({
      set: "status = 'COMPLETED'",
      allowed: "status in ('PENDING', 'SENT')",
    });
    expect(() => moveDepositReturn('SENT', 'CANCELLED')).toThrow(
      'deposit return cannot move from SENT to CANCELLED',
    );
    expect(() => moveDepositReturn('COMPLETED', 'FAILED')).toThrow(
      'deposit return cannot move from COMPLETED to FAILED',
    );
  });
});
