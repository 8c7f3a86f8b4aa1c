import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankTransfers, ReturnOutcome } from '../adapters/bank/bank-transfers';
import type { Clock } from '../clock';
import { Deposit } from '../db/entities/deposit.entity';
import { executeInTransaction } from '../db/locks';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import type { LedgerService } from '../ledger';
import type { Logger } from 'pino';
import type { DepositTransitions } from './deposit-transitions';

/** How long a claimed attempt waits before the sweep sends it again (a crashed runner's). */
const CLAIM_MS = 30_000;
const BATCH = 20;

interface ClaimedReturn {
  id: string;
  deposit_id: string;
  merchant_id: string;
  amount_ngn: string;
  fee_ngn: string;
  to_account: string;
  bank_code: string | null;
  name: string | null;
}

/**
 * The runner's side of returns, like FX orders: claim the due attempts and commit (the claim
 * pushes `next_attempt_at` out, so a crash leaves them due again later), call the bank outside
 * any transaction with the attempt's id as reference (idempotent at the bank), then apply each
 * outcome in its own transaction. A retried attempt reuses its reference, so the bank moves
 * the money once.
 */
export class ReturnSender {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    private readonly bank: BankTransfers,
    private readonly logger?: Logger,
  ) {}

  private running: Promise<void> | null = null;
  private again = false;

  /**
   * A RETURNING notice's wake-up: sends what is due now; wakes during a run coalesce into one
   * more run (the sweep job is the safety net for a missed notice).
   */
  wake(openEm: () => EntityManager): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while ((await this.sendDue(openEm())) > 0);
        } while (this.again);
      } catch (error) {
        this.logger?.warn({ err: error }, 'sending returns failed; the sweep retries');
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  /** Sends every due attempt; answers how many it handled (0: nothing due). */
  async sendDue(em: EntityManager): Promise<number> {
    const claimed = await this.claim(em);
    for (const attempt of claimed) {
      let outcome: ReturnOutcome;
      try {
        outcome = await this.bank.sendReturn(
          {
            depositId: attempt.deposit_id,
            merchantId: attempt.merchant_id,
            amountNgn: dec(attempt.amount_ngn).minus(dec(attempt.fee_ngn)).toFixed(2),
            toAccount: attempt.to_account,
            bankCode: attempt.bank_code,
            name: attempt.name,
            reference: attempt.id,
          },
          em,
        );
      } catch (error) {
        // Transport trouble: the claim expires and the sweep tries again, same reference.
        this.logger?.warn({ err: error, returnId: attempt.id }, 'bank return call failed');
        continue;
      }
      await this.apply(em, attempt, outcome);
    }
    return claimed.length;
  }

  private claim(em: EntityManager): Promise<ClaimedReturn[]> {
    const now = this.clock.now();
    return em.fork().transactional((tx) =>
      executeInTransaction<ClaimedReturn>(
        tx,
        `update deposit_returns r
            set attempts = r.attempts + 1, next_attempt_at = ?, updated_at = ?
          where r.id in (select id from deposit_returns
                          where status in ('PENDING', 'SENT') and next_attempt_at <= ?
                          order by next_attempt_at, id limit ${BATCH}
                          for update skip locked)
          returning r.id, r.deposit_id, r.merchant_id, r.amount_ngn::text as amount_ngn,
                    r.fee_ngn::text as fee_ngn, r.to_account, r.bank_code, r.name`,
        [new Date(now.getTime() + CLAIM_MS), now, now],
      ),
    );
  }

  /** Records the bank's answer: RETURNED with the NGN out, RETURN_FAILED, or still waiting. */
  async apply(em: EntityManager, attempt: ClaimedReturn, outcome: ReturnOutcome): Promise<void> {
    await em.fork().transactional(async (tx) => {
      const deposit = await tx.findOneOrFail(
        Deposit,
        { id: attempt.deposit_id },
        { lockMode: LockMode.PESSIMISTIC_WRITE },
      );
      const [open] = await executeInTransaction<{ id: string }>(
        tx,
        `select id from deposit_returns where id = ? and status in ('PENDING', 'SENT') for update`,
        [attempt.id],
      );
      // Already applied (another runner's answer for the same reference): nothing to do.
      if (!open || deposit.status !== 'RETURNING') return;
      if (outcome.outcome === 'accepted') {
        await this.setAttempt(tx, attempt.id, 'SENT', null);
        return;
      }
      if (outcome.outcome === 'refused') {
        await this.setAttempt(tx, attempt.id, 'FAILED', outcome.reason);
        await this.transitions.moveTo(tx, deposit, 'RETURN_FAILED');
        return;
      }
      const amount = dec(attempt.amount_ngn);
      const fee = dec(attempt.fee_ngn);
      await this.setAttempt(tx, attempt.id, 'COMPLETED', null);
      await this.ledger.post(tx, {
        kind: 'deposit_returned',
        depositId: deposit.id,
        memo: `returned to the payer (${attempt.id}), fee ${fee.toFixed(2)} NGN`,
        postings: [
          ...transfer(OPERATOR.ngnReturns, OPERATOR.ngnBank, amount.minus(fee)),
          ...transfer(OPERATOR.ngnReturns, OPERATOR.ngnReturnFees, fee),
        ],
      });
      await this.transitions.moveTo(tx, deposit, 'RETURNED', { ngnLeft: true });
    });
  }

  private async setAttempt(
    tx: EntityManager,
    id: string,
    status: 'SENT' | 'COMPLETED' | 'FAILED',
    failureReason: string | null,
  ): Promise<void> {
    await executeInTransaction(
      tx,
      'update deposit_returns set status = ?, failure_reason = ?, updated_at = ? where id = ?',
      [status, failureReason, this.clock.now(), id],
    );
  }
}
