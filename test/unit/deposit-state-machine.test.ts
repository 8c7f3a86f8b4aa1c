import {
  canTransition,
  DEPOSIT_STATUSES,
  EVENT_ON_ENTRY,
  IllegalTransitionError,
  transition,
  type DepositStatus,
} from '../../src/domain/deposit-state-machine';

/** The spec's transition table and API.md's additions, written out independently. */
const ALLOWED: Array<[DepositStatus | null, DepositStatus]> = [
  [null, 'PENDING_FX'], // transfer within TTL, rate validity, minimum and limits
  [null, 'FLAGGED'], // after onramp or rate expiry, second THROWAWAY transfer, frozen, limits
  [null, 'FAILED'], // below minimum deposit
  ['PENDING_FX', 'SETTLED'], // MERCHANT_BALANCE
  ['PENDING_FX', 'PENDING_WITHDRAWAL'], // AUTO_WITHDRAW, risk approved
  ['PENDING_FX', 'FLAGGED'], // temporary FX failure, risk rejection
  ['PENDING_FX', 'FAILED'], // permanent FX failure, bank reversal before settlement
  ['PENDING_WITHDRAWAL', 'SETTLED'], // confirmed on-chain
  ['PENDING_WITHDRAWAL', 'FLAGGED'], // risk rejection, outage past maximum, reversal
  ['SETTLED', 'REVERSED'], // bank reversal after settlement
  ['FLAGGED', 'PENDING_FX'], // operator: settle at the current rate
  ['FLAGGED', 'FAILED'], // operator: closed after a bank reversal (the payer has the NGN)
  ['FLAGGED', 'RETURNING'], // merchant, operator or rule: send the NGN back to the payer
  ['RETURNING', 'RETURNED'], // the bank confirmed the transfer back
  ['RETURNING', 'RETURN_FAILED'], // the bank refused it
  ['RETURN_FAILED', 'RETURNING'], // the operator tries again
  ['RETURNING', 'REVERSED'], // a bank reversal before the return was sent: it is cancelled
  ['RETURNING', 'FLAGGED'], // a bank reversal after it was sent: 'Reversal during return'
  ['RETURNED', 'FLAGGED'], // a bank reversal after it was paid: the payer has it twice
];

describe('deposit state machine', () => {
  const all: Array<DepositStatus | null> = [null, ...DEPOSIT_STATUSES];

  it.each(all.flatMap((from) => DEPOSIT_STATUSES.map((to) => [from, to] as const)))(
    '%s -> %s is allowed exactly when the table says so',
    (from, to) => {
      const expected = ALLOWED.some(([f, t]) => f === from && t === to);
      expect(canTransition(from, to)).toBe(expected);
      if (expected) expect(transition(from, to)).toEqual({ event: EVENT_ON_ENTRY[to] });
      else expect(() => transition(from, to)).toThrow(IllegalTransitionError);
    },
  );

  it('names one event per status entered, as API.md lists them', () => {
    expect(EVENT_ON_ENTRY).toEqual({
      PENDING_FX: 'deposit.created',
      PENDING_WITHDRAWAL: 'deposit.pending_withdrawal',
      SETTLED: 'deposit.settled',
      FAILED: 'deposit.failed',
      FLAGGED: 'deposit.flagged',
      REVERSED: 'deposit.reversed',
      RETURNING: 'deposit.returning',
      RETURNED: 'deposit.returned',
      RETURN_FAILED: 'deposit.return_failed',
    });
  });

  it('never leaves FAILED or REVERSED, and nothing re-enters a status it is in', () => {
    for (const to of DEPOSIT_STATUSES) {
      expect(canTransition('FAILED', to)).toBe(false);
      expect(canTransition('REVERSED', to)).toBe(false);
      expect(canTransition(to, to)).toBe(false);
    }
  });

  it('leaves RETURNED only for FLAGGED (a reversal): never RETURNED with a reversal recorded', () => {
    expect(DEPOSIT_STATUSES.filter((to) => canTransition('RETURNED', to))).toEqual(['FLAGGED']);
    expect(DEPOSIT_STATUSES.filter((to) => canTransition('RETURNING', to))).toEqual([
      'FLAGGED',
      'REVERSED',
      'RETURNED',
      'RETURN_FAILED',
    ]);
  });
});

describe('returns to the payer', () => {
  it('a RETURN_FAILED deposit only goes back to RETURNING, never to FLAGGED', () => {
    expect(canTransition('RETURN_FAILED', 'FLAGGED')).toBe(false);
    expect(DEPOSIT_STATUSES.filter((to) => canTransition('RETURN_FAILED', to))).toEqual([
      'RETURNING',
    ]);
  });
});
