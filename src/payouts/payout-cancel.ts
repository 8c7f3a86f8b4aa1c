import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Payout } from './payout.entity';
import { retryOnConflict } from '../db/retry';
import { REASON } from '../domain/deposit-reasons';
import { transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import type { LedgerService } from '../ledger';
import { payoutHolding, payoutReturn } from './payout-ledger';
import { lockedPayout, savePayouts } from './payout-store';
import { movePayout } from './payout-transitions';
import { finishWithdrawal } from './withdrawal-finish';
import type { CancelledPayoutOwner } from './payout-ports';

/**
 * The cancel stage: a payout that was never signed ends CANCELLED (a signed one never does:
 * its nonce may be mined at any moment). Its USD goes back where it came from, and its owner
 * moves: the deposit to FLAGGED, the withdrawal to FAILED.
 */
export class PayoutCanceller {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly owner: CancelledPayoutOwner,
  ) {}

  /**
   * Cancels a payout that was never signed (chain outage past its maximum): its deposit is
   * FLAGGED with the USD held, or its withdrawal FAILED with the USD back in the balance.
   */
  async cancel(em: EntityManager, payoutId: string, why: 'chain outage'): Promise<boolean> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const payout = await lockedPayout(tx, payoutId);
        if (!payout || payout.status !== 'PENDING') return false;
        await this.cancelLocked(tx, payout, why, REASON.chainOutage);
        return true;
      }),
    );
  }

  /**
   * Cancels a locked PENDING payout and moves its owner: the deposit to FLAGGED with
   * `depositReason` (unless `depositReason` is null: the caller moves it), the withdrawal to
   * FAILED.
   */
  async cancelLocked(
    tx: EntityManager,
    payout: Payout,
    why: string,
    depositReason: string | null,
  ): Promise<void> {
    const now = this.clock.now();
    movePayout(payout, { to: 'CANCELLED', reason: why }, now);
    await savePayouts(tx, [payout]);
    await this.ledger.post(tx, {
      kind: 'payout_cancelled',
      payoutId: payout.id,
      depositId: payout.depositId,
      memo: why,
      postings: transfer(payoutHolding(payout), payoutReturn(payout), dec(payout.amount)),
    });
    if (payout.depositId) {
      if (depositReason === null) return;
      await this.owner.flagDeposit(tx, payout.depositId, depositReason);
    } else {
      await finishWithdrawal(tx, payout, { to: 'FAILED', reason: why, txHash: null }, now);
    }
  }
}
