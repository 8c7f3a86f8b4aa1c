import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { ReturnNotification } from '../adapters/bank/bank-adapter';
import type { ReturnOutcome } from '../adapters/bank/bank-transfers';
import type { Clock } from '../clock';
import { Deposit } from './deposit.entity';
import { executeInTransaction } from '../db/locks';
import type { DepositStatus } from '../domain/deposit-state-machine';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import type { LedgerService } from '../ledger';
import type { DepositTransitions } from './deposit-transitions';
import type { DepositReturnStatus } from '../domain/deposit-return-lifecycle';
import { moveDepositReturn } from './deposit-return-transitions';

/** What applying a bank answer did: `unknown` when no attempt has that reference. */
export type AppliedReturnOutcome =
  { kind: 'unknown' } | { kind: 'applied' | 'unchanged'; depositId: string; status: DepositStatus };

/** The bank's reason is kept for the operator; a longer one is cut (the body allows 64 KiB). */
const MAX_REASON = 500;

interface OpenAttempt {
  id: string;
  status: DepositReturnStatus;
  amount_ngn: string;
  fee_ngn: string;
}

/**
 * Records the bank's answer to one return attempt, whoever learned it: the runner's call (the
 * answer to `sendReturn`) or the bank's notification (`transfer.return_completed` /
 * `transfer.return_failed` on the gateway). Both go through `apply`, which locks the deposit,
 * then the attempt while it is still PENDING or SENT: the second answer for a reference finds
 * it closed and changes nothing, so the NGN leaves the ledger once.
 */
export class ReturnOutcomes {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
  ) {}

  /**
   * A bank notification of a return's outcome (the gateway's route, or the sandbox bank
   * in-process): the same `apply` as the runner's polled answer.
   */
  notified(em: EntityManager, event: ReturnNotification): Promise<AppliedReturnOutcome> {
    return this.apply(
      em,
      event.reference,
      event.type === 'transfer.return_completed'
        ? { outcome: 'completed' }
        : { outcome: 'refused', reason: event.reason.slice(0, MAX_REASON) },
    );
  }

  /** `reference`: the attempt id we sent as the bank's idempotency reference. */
  async apply(
    em: EntityManager,
    reference: string,
    outcome: ReturnOutcome,
  ): Promise<AppliedReturnOutcome> {
    return em.fork().transactional(async (tx) => {
      // The attempt's deposit never changes: read it unlocked, then lock in the usual order
      // (deposit, then attempt), as starting a return does.
      const [row] = await executeInTransaction<{ deposit_id: string }>(
        tx,
        'select deposit_id from deposit_returns where id = ?',
        [reference],
      );
      if (!row) return { kind: 'unknown' } as const;
      const deposit = await tx.findOneOrFail(
        Deposit,
        { id: row.deposit_id },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      const [open] = await executeInTransaction<OpenAttempt>(
        tx,
        `select id, status, amount_ngn::text as amount_ngn, fee_ngn::text as fee_ngn
           from deposit_returns
          where id = ? and status in ('PENDING', 'SENT') for update`,
        [reference],
      );
      const unchanged = {
        kind: 'unchanged',
        depositId: deposit.id,
        status: deposit.status,
      } as const;
      // Already applied (the other path's answer for the same reference): nothing to do.
      if (!open) return unchanged;
      if (deposit.reversedAt !== null) return this.afterReversal(tx, deposit, open, outcome);
      if (deposit.status !== 'RETURNING') return unchanged;
      if (outcome.outcome === 'accepted') {
        await this.setAttempt(tx, open, 'SENT', null);
        return unchanged;
      }
      if (outcome.outcome === 'refused') {
        await this.setAttempt(tx, open, 'FAILED', outcome.reason);
        await this.transitions.moveTo(tx, deposit, 'RETURN_FAILED');
        return { kind: 'applied', depositId: deposit.id, status: deposit.status } as const;
      }
      const amount = dec(open.amount_ngn);
      const fee = dec(open.fee_ngn);
      await this.setAttempt(tx, open, 'COMPLETED', null);
      await this.ledger.post(tx, {
        kind: 'deposit_returned',
        depositId: deposit.id,
        memo: `returned to the payer (${open.id}), fee ${fee.toFixed(2)} NGN`,
        postings: [
          ...transfer(OPERATOR.ngnReturns, OPERATOR.ngnBank, amount.minus(fee)),
          ...transfer(OPERATOR.ngnReturns, OPERATOR.ngnReturnFees, fee),
        ],
      });
      await this.transitions.moveTo(tx, deposit, 'RETURNED', { ngnLeft: true });
      return { kind: 'applied', depositId: deposit.id, status: deposit.status } as const;
    });
  }

  /**
   * The bank reversed the transfer while this return was out (the deposit is FLAGGED 'Reversal
   * during return', see `ReturnReversal`): the reversal already emptied ngn_returns, and the
   * deposit stays where it is. A refusal only closes the attempt; a payment is the payer's
   * second one: it leaves ngn_bank, owed back by the payer (ngn_paid_twice), and earns no fee.
   */
  private async afterReversal(
    tx: EntityManager,
    deposit: Deposit,
    open: OpenAttempt,
    outcome: ReturnOutcome,
  ): Promise<AppliedReturnOutcome> {
    const applied = { kind: 'applied', depositId: deposit.id, status: deposit.status } as const;
    if (outcome.outcome === 'accepted') {
      await this.setAttempt(tx, open, 'SENT', null);
      return { ...applied, kind: 'unchanged' };
    }
    if (outcome.outcome === 'refused') {
      await this.setAttempt(tx, open, 'FAILED', outcome.reason);
      return applied;
    }
    await this.setAttempt(tx, open, 'COMPLETED', null);
    const paid = dec(open.amount_ngn).minus(dec(open.fee_ngn));
    if (!paid.isZero()) {
      await this.ledger.post(tx, {
        kind: 'deposit_paid_twice',
        depositId: deposit.id,
        memo: `return ${open.id} paid after the bank reversed the transfer: owed by the payer`,
        postings: transfer(OPERATOR.ngnPaidTwice, OPERATOR.ngnBank, paid),
      });
    }
    return applied;
  }

  /** The attempt (locked, read open) to the bank's answer, as its lifecycle allows. */
  private async setAttempt(
    tx: EntityManager,
    attempt: OpenAttempt,
    to: 'SENT' | 'COMPLETED' | 'FAILED',
    failureReason: string | null,
  ): Promise<void> {
    const move = moveDepositReturn(attempt.status, to);
    await executeInTransaction(
      tx,
      `update deposit_returns set ${move.set}, failure_reason = ?, updated_at = ?
        where id = ? and ${move.allowed}`,
      [failureReason, this.clock.now(), attempt.id],
    );
  }
}
