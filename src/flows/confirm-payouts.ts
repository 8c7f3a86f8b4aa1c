import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { retryOnConflict } from '../db/retry';
import {
  paidOutMoves,
  reportSettled,
  type DepositTransitions,
  type PaidOutDeposit,
  type SettlementObserver,
} from '../deposits';
import type { LedgerService } from '../ledger';
import { bookMinedPayouts, finishMinedWithdrawals, type MinedPayout } from '../payouts';

/**
 * Confirm payouts: mined payouts are booked and their owners moved in ONE transaction, in
 * this order: the payouts (CONFIRMED, or FAILED on a revert), their deposits (SETTLED, or
 * FLAGGED), their withdrawals (COMPLETED, or FAILED), then the ledger in one statement with
 * the deposits' moves (a merchant entry locks the balance row until commit). Deposits settled
 * are reported after commit. Any number of callers may meet the same block (a payout no
 * longer SIGNED is skipped).
 */
export class ConfirmPayouts {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    /** Told about each AUTO_WITHDRAW deposit settled by its confirmed payout, after commit. */
    private readonly onSettled?: SettlementObserver,
  ) {}

  /** Returns how many payouts this call booked. */
  async settle(em: EntityManager, mined: MinedPayout[]): Promise<number> {
    if (mined.length === 0) return 0;
    let booked = 0;
    let settled: PaidOutDeposit[] = [];
    await retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        settled = [];
        const now = this.clock.now();
        const book = await bookMinedPayouts(tx, now, mined);
        booked = book.booked;
        if (booked === 0) return;
        const moves = await paidOutMoves(tx, book.deposits);
        await finishMinedWithdrawals(tx, book, now);
        if (moves.length > 0) await this.transitions.moveAllTo(tx, moves, book.entries);
        else await this.ledger.postAll(tx, book.entries);
        settled = moves.filter((m) => m.to === 'SETTLED').map((m) => m.deposit);
      }),
    );
    for (const deposit of settled) reportSettled(this.onSettled, deposit);
    return booked;
  }
}
