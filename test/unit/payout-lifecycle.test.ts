import {
  PAYOUT_LIFECYCLE,
  PAYOUT_STATUSES,
  WITHDRAWAL_LIFECYCLE,
  WITHDRAWAL_STATUSES,
} from '../../src/domain/payout-lifecycle';
import { canMove, checkMove, IllegalTransitionError } from '../../src/domain/transitions';
import { Payout } from '../../src/payouts/payout.entity';
import { Withdrawal } from '../../src/payouts/withdrawal.entity';
import { movePayout, moveWithdrawal } from '../../src/payouts/payout-transitions';

/** Every (from, to) pair of a lifecycle, the new row (null) included. */
function allPairs<S extends string>(statuses: readonly S[]): Array<[S | null, S]> {
  return [null, ...statuses].flatMap((from) => statuses.map((to): [S | null, S] => [from, to]));
}

describe('payout lifecycle as data', () => {
  const legal: Array<[string | null, string]> = [
    [null, 'PENDING'],
    ['PENDING', 'SIGNED'],
    ['PENDING', 'CANCELLED'],
    ['SIGNED', 'CONFIRMED'],
    ['SIGNED', 'FAILED'],
    // A reorg removed the block it was booked from (issue 35): it waits to be mined again.
    ['CONFIRMED', 'SIGNED'],
    ['FAILED', 'SIGNED'],
  ];

  it.each(legal)('allows %s -> %s', (from, to) => {
    expect(() =>
      checkMove(PAYOUT_LIFECYCLE, from as never, to as (typeof PAYOUT_STATUSES)[number]),
    ).not.toThrow();
  });

  it('refuses every other move: a signed payout is never cancelled, a booked one moves only back to SIGNED', () => {
    const allowed = new Set(legal.map(([from, to]) => `${from}>${to}`));
    for (const [from, to] of allPairs(PAYOUT_STATUSES)) {
      expect(canMove(PAYOUT_LIFECYCLE, from, to)).toBe(allowed.has(`${from}>${to}`));
    }
    expect(() => checkMove(PAYOUT_LIFECYCLE, 'SIGNED', 'CANCELLED')).toThrow(
      new IllegalTransitionError('payout', 'SIGNED', 'CANCELLED'),
    );
    expect(() => checkMove(PAYOUT_LIFECYCLE, null, 'SIGNED')).toThrow(
      'payout cannot move from (new) to SIGNED',
    );
  });
});

describe('withdrawal lifecycle as data', () => {
  const legal: Array<[string | null, string]> = [
    [null, 'PENDING'],
    ['PENDING', 'BROADCAST'],
    ['PENDING', 'COMPLETED'],
    ['PENDING', 'FAILED'],
    ['BROADCAST', 'COMPLETED'],
    ['BROADCAST', 'FAILED'],
  ];

  it.each(legal)('allows %s -> %s', (from, to) => {
    expect(() =>
      checkMove(WITHDRAWAL_LIFECYCLE, from as never, to as (typeof WITHDRAWAL_STATUSES)[number]),
    ).not.toThrow();
  });

  it('refuses every other move: COMPLETED and FAILED are final', () => {
    const allowed = new Set(legal.map(([from, to]) => `${from}>${to}`));
    for (const [from, to] of allPairs(WITHDRAWAL_STATUSES)) {
      expect(canMove(WITHDRAWAL_LIFECYCLE, from, to)).toBe(allowed.has(`${from}>${to}`));
    }
    expect(() => checkMove(WITHDRAWAL_LIFECYCLE, 'COMPLETED', 'FAILED')).toThrow(
      'withdrawal cannot move from COMPLETED to FAILED',
    );
  });
});

describe('the one transition function per aggregate', () => {
  const now = new Date('2026-06-01T12:00:00Z');

  it('sets a new payout PENDING, records what SIGNED carries, and refuses cancelling it then', () => {
    const payout = new Payout();
    movePayout(payout, { to: 'PENDING' }, now);
    expect(payout).toMatchObject({ status: 'PENDING', updatedAt: now });
    const signed = { nonce: 7, fromAddress: '0xhot', tokenAddress: '0xusdc', txHash: '0xaa' };
    movePayout(payout, { to: 'SIGNED', ...signed }, now);
    expect(payout).toMatchObject({ status: 'SIGNED', nonce: '7', txHash: '0xaa', signedAt: now });
    expect(() => movePayout(payout, { to: 'CANCELLED', reason: 'chain outage' }, now)).toThrow(
      IllegalTransitionError,
    );
    expect(payout.status).toBe('SIGNED');
    expect(payout.cancelReason).toBeUndefined();
  });

  it('books a mined payout with its block, and a reorg takes it back to SIGNED keeping its transaction', () => {
    const payout = new Payout();
    movePayout(payout, { to: 'PENDING' }, now);
    movePayout(
      payout,
      { to: 'SIGNED', nonce: 3, fromAddress: '0xhot', tokenAddress: '0xusdc', txHash: '0xaa' },
      now,
    );
    movePayout(
      payout,
      { to: 'CONFIRMED', txHash: '0xaa', blockNumber: 12n, blockHash: '0xb1' },
      now,
    );
    expect(payout).toMatchObject({ status: 'CONFIRMED', blockNumber: '12', blockHash: '0xb1' });
    const later = new Date('2026-06-01T12:05:00Z');
    movePayout(payout, { to: 'SIGNED', reorged: true }, later);
    expect(payout).toMatchObject({
      status: 'SIGNED',
      nonce: '3',
      txHash: '0xaa',
      blockNumber: null,
      blockHash: null,
      confirmedAt: null,
      reorgedAt: later,
    });
    // Only a booked payout can be reorged (a PENDING one has no block to lose), and a booked
    // one is never signed anew (its nonce is taken).
    const fresh = new Payout();
    movePayout(fresh, { to: 'PENDING' }, now);
    expect(() => movePayout(fresh, { to: 'SIGNED', reorged: true }, now)).toThrow(
      IllegalTransitionError,
    );
    movePayout(payout, { to: 'FAILED', txHash: '0xaa', blockNumber: 13n, blockHash: '0xb2' }, now);
    const again = { nonce: 4, fromAddress: '0xhot', tokenAddress: '0xusdc', txHash: '0xcc' };
    expect(() => movePayout(payout, { to: 'SIGNED', ...again }, now)).toThrow(
      IllegalTransitionError,
    );
    expect(payout).toMatchObject({ status: 'FAILED', nonce: '3' });
  });

  it('fails a withdrawal with its reason, and refuses to move it again', () => {
    const withdrawal = new Withdrawal();
    moveWithdrawal(withdrawal, { to: 'PENDING' }, now);
    moveWithdrawal(withdrawal, { to: 'FAILED', reason: 'risk review', txHash: null }, now);
    expect(withdrawal).toMatchObject({ status: 'FAILED', failureReason: 'risk review' });
    expect(() => moveWithdrawal(withdrawal, { to: 'COMPLETED', txHash: '0xbb' }, now)).toThrow(
      'withdrawal cannot move from FAILED to COMPLETED',
    );
    expect(withdrawal.txHash).toBeUndefined();
  });
});
