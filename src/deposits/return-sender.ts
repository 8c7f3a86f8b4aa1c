import type { EntityManager } from '@mikro-orm/postgresql';
import type { BankTransfers, ReturnOutcome } from '../adapters/bank/bank-transfers';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { dec } from '../domain/money';
import type { Logger } from 'pino';
import type { ReturnOutcomes } from './return-outcomes';
import { accountProviderSubquery } from '../onramps/account-provider';

/** The provider of the account a return's deposit arrived in (`r`: the deposit_returns row). */
const DEPOSIT_PROVIDER_SQL = accountProviderSubquery(
  '(select dp.account_number from deposits dp where dp.id = r.deposit_id)',
);

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
  /** The provider whose account received the deposit (it sends the return). */
  provider: string | null;
}

/**
 * The runner's side of returns, like FX orders: claim the due attempts and commit (the claim
 * pushes `next_attempt_at` out, so a crash leaves them due again later), call the bank outside
 * any transaction with the attempt's id as reference (idempotent at the bank), then apply each
 * outcome through `ReturnOutcomes` (shared with the bank's notifications). A retried attempt
 * reuses its reference, so the bank moves the money once; an `accepted` attempt (SENT) is
 * asked again by the sweep, which is how a lost notification is recovered.
 *
 * After a bank reversal (`ReturnReversal`) only an attempt the bank acknowledged (SENT) is
 * asked again, which cannot move money twice; a PENDING one whose call's fate is unknown is
 * not called again: if the bank never got it, the payer is not paid a second time, and if it
 * did, its notification still applies.
 */
export class ReturnSender {
  constructor(
    private readonly clock: Clock,
    private readonly outcomes: ReturnOutcomes,
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
            ...(attempt.provider ? { provider: attempt.provider } : {}),
          },
          em,
        );
      } catch (error) {
        // Transport trouble: the claim expires and the sweep tries again, same reference.
        this.logger?.warn({ err: error, returnId: attempt.id }, 'bank return call failed');
        continue;
      }
      await this.outcomes.apply(em, attempt.id, outcome);
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
          where r.id in (select o.id from deposit_returns o
                          where o.status in ('PENDING', 'SENT') and o.next_attempt_at <= ?
                            and (o.status = 'SENT' or not exists (
                                   select 1 from deposits d
                                    where d.id = o.deposit_id and d.reversed_at is not null))
                          order by o.next_attempt_at, o.id limit ${BATCH}
                          for update skip locked)
          returning r.id, r.deposit_id, r.merchant_id, r.amount_ngn::text as amount_ngn,
                    r.fee_ngn::text as fee_ngn, r.to_account, r.bank_code, r.name,
                    ${DEPOSIT_PROVIDER_SQL} as provider`,
        [new Date(now.getTime() + CLAIM_MS), now, now],
      ),
    );
  }
}
