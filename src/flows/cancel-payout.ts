import type { EntityManager } from '@mikro-orm/postgresql';
import { lockDeposit, type DepositTransitions } from '../deposits';
import type { CancelledPayoutOwner } from '../payouts';

/**
 * Cancel a payout, the deposit's half: payouts cancel the payout, post its return entry and
 * then call this in the same transaction; the deposit, if still PENDING_WITHDRAWAL, moves to
 * FLAGGED with the reason.
 */
export class FlagDepositOfCancelledPayout implements CancelledPayoutOwner {
  constructor(private readonly transitions: DepositTransitions) {}

  async flagDeposit(tx: EntityManager, depositId: string, reason: string): Promise<void> {
    const deposit = await lockDeposit(tx, depositId);
    if (!deposit) throw new Error(`deposit ${depositId} of a cancelled payout not found`);
    if (deposit.status === 'PENDING_WITHDRAWAL') {
      await this.transitions.moveTo(tx, deposit, 'FLAGGED', { reason });
    }
  }
}
