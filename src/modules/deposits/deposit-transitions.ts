import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock';
import type { Deposit } from '../../db/entities/deposit.entity';
import { transition, type DepositStatus } from './deposit-state-machine';
import { countsAgainstLimits } from './deposit-rules';
import { ngnHoldingOf, transfer } from '../ledger/ledger-accounts';
import { dec } from '../../domain/money';
import { adjustDailyVolume } from './daily-volume';
import type { LedgerService } from '../ledger/ledger.service';

export interface MoveOptions {
  /** flag_reason (to FLAGGED) or failure_reason (to FAILED). */
  reason?: string;
  /**
   * The NGN has left the operator (a bank reversal): the caller books where it went, so the
   * move does not carry it between holding accounts.
   */
  ngnLeft?: boolean;
}

/**
 * The one place a deposit's status changes: checks the move against the table, keeps the
 * daily limit totals and the NGN holding accounts in step, and saves. The database trigger
 * writes the move's outbox event in the same transaction. The deposit must be row-locked.
 */
export class DepositTransitions {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
  ) {}

  async moveTo(
    tx: EntityManager,
    deposit: Deposit,
    to: DepositStatus,
    options: MoveOptions = {},
  ): Promise<void> {
    const from = deposit.status;
    transition(from, to);
    if ((to === 'FLAGGED' || to === 'FAILED') && !options.reason) {
      throw new Error(`a move to ${to} needs a reason`);
    }
    const limitUsd = dec(deposit.limitUsd);
    if (countsAgainstLimits(from) !== countsAgainstLimits(to)) {
      const delta = countsAgainstLimits(to) ? limitUsd : limitUsd.neg();
      await adjustDailyVolume(tx, deposit.merchantId, deposit.lagosDay, delta);
    }
    const converted = deposit.fxExecutedAt !== null;
    const held = ngnHoldingOf(from, converted);
    const next = ngnHoldingOf(to, converted);
    if (!options.ngnLeft && held && next && held.id !== next.id) {
      await this.ledger.post(tx, {
        kind: 'deposit_hold',
        depositId: deposit.id,
        memo: `${from} -> ${to}`,
        postings: transfer(held, next, dec(deposit.amountNgn)),
      });
    }
    const now = this.clock.now();
    deposit.status = to;
    deposit.flagReason = to === 'FLAGGED' ? options.reason! : null;
    deposit.failureReason = to === 'FAILED' ? options.reason! : null;
    if (to === 'SETTLED') deposit.settledAt = now;
    deposit.updatedAt = now;
    await tx.flush();
  }
}
