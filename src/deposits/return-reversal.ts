import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Deposit } from './deposit.entity';
import { executeInTransaction } from '../db/locks';
import { REASON } from '../domain/deposit-reasons';
import type { DepositStatus } from '../domain/deposit-state-machine';
import { OPERATOR, transfer, type Posting } from '../domain/ledger';
import { dec } from '../domain/money';
import type { LedgerService } from '../ledger';
import type { DepositTransitions } from './deposit-transitions';
import type { DepositReturnStatus } from '../domain/deposit-return-lifecycle';
import { moveDepositReturn } from './deposit-return-transitions';

/** Why an attempt stopped before the runner sent it (kept on the attempt for the operator). */
export const CANCELLED_BY_REVERSAL = 'Cancelled: the bank reversed the transfer before it was sent';

/**
 * A bank reversal of a deposit on its way back to the payer, or already back (docs/api.md,
 * "Returns to the payer"). NGN goes back to a payer at most once, so:
 * - RETURNING, its attempt never claimed by the runner (PENDING, 0 attempts): the attempt is
 *   CANCELLED and never sent, the reversal takes the NGN out of ngn_returns, REVERSED;
 * - RETURNING, its attempt claimed (the bank may have it, or be paying it): the reversal
 *   takes the NGN out of ngn_returns as well, and the deposit is FLAGGED 'Reversal during
 *   return'; if the bank later pays the return, `ReturnOutcomes` books that second payment as
 *   owed by the payer (ngn_paid_twice) instead of emptying ngn_returns again;
 * - RETURNED: the payer has it twice. The bank takes the amount out of ngn_bank; what the
 *   return paid becomes ngn_paid_twice, and the fee the return kept is given up. FLAGGED too.
 *
 * The runner claims attempts `for update skip locked` and commits the claim before it calls
 * the bank; this reads the attempt `for update` under the deposit's lock: a claim that
 * committed first is seen (sent), one that comes later skips the row and then finds it
 * CANCELLED. So there is no moment where the return is both cancelled and sent.
 */
export class ReturnReversal {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
  ) {}

  static handles(status: DepositStatus): boolean {
    return status === 'RETURNING' || status === 'RETURNED';
  }

  /** The deposit must be row-locked in `tx`; records the reversal, its postings and the move. */
  async reverse(tx: EntityManager, deposit: Deposit): Promise<void> {
    const amount = dec(deposit.amountNgn);
    const now = this.clock.now();
    deposit.reversedAt = now;
    if (deposit.status === 'RETURNED') {
      const [paid] = await executeInTransaction<{ fee_ngn: string }>(
        tx,
        `select fee_ngn::text as fee_ngn from deposit_returns
          where deposit_id = ? and status = 'COMPLETED'`,
        [deposit.id],
      );
      const fee = dec(paid.fee_ngn);
      const legs: Posting[] = [
        { account: OPERATOR.ngnPaidTwice, direction: 'DEBIT', amount: amount.minus(fee) },
        { account: OPERATOR.ngnReturnFees, direction: 'DEBIT', amount: fee },
        { account: OPERATOR.ngnBank, direction: 'CREDIT', amount },
      ];
      await this.ledger.post(tx, {
        kind: 'deposit_reversal',
        depositId: deposit.id,
        memo: 'reversed after its return was paid: the payer has it twice',
        postings: legs.filter((leg) => !leg.amount.isZero()),
      });
      await this.flag(tx, deposit);
      return;
    }
    const [open] = await executeInTransaction<{
      id: string;
      status: DepositReturnStatus;
      attempts: number;
    }>(
      tx,
      `select id, status, attempts from deposit_returns
        where deposit_id = ? and status in ('PENDING', 'SENT') for update`,
      [deposit.id],
    );
    await this.ledger.post(tx, {
      kind: 'deposit_reversal',
      depositId: deposit.id,
      postings: transfer(OPERATOR.ngnReturns, OPERATOR.ngnBank, amount),
    });
    if (open && open.status === 'PENDING' && Number(open.attempts) === 0) {
      const cancelled = moveDepositReturn(open.status, 'CANCELLED');
      await executeInTransaction(
        tx,
        `update deposit_returns set ${cancelled.set}, failure_reason = ?, updated_at = ?
          where id = ? and ${cancelled.allowed}`,
        [CANCELLED_BY_REVERSAL, now, open.id],
      );
      await this.transitions.moveTo(tx, deposit, 'REVERSED', { ngnLeft: true });
      return;
    }
    // Claimed: whether the bank has it is unknown until its outcome. Treat it as sent.
    await this.flag(tx, deposit);
  }

  private flag(tx: EntityManager, deposit: Deposit): Promise<void> {
    return this.transitions.moveTo(tx, deposit, 'FLAGGED', {
      reason: REASON.reversalDuringReturn,
      ngnLeft: true,
    });
  }
}
