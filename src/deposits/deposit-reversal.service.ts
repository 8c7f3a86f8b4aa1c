import { performance } from 'node:perf_hooks';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { Deposit } from './deposit.entity';
import { retryOnConflict } from '../db/retry';
import { REASON } from '../domain/deposit-reasons';
import type { DepositStatus } from '../domain/deposit-state-machine';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from '../domain/errors';
import { ngnHoldingOf, OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import type { DepositTransitions } from './deposit-transitions';
import type { LedgerService, ReserveLedger } from '../ledger';
import { annotateDepositEvent } from '../events';
import type { DepositPayouts } from './deposit-ports';
import { depositSnapshot } from './deposit-snapshot';
import { ReturnReversal } from './return-reversal';

/** How long a reversal waits for a settlement batch that holds the deposit to finish. */
const CLAIM_WAIT_MS = 15_000;
const CLAIM_POLL_MS = 25;

/** The deposit's FX order may be at the venue: its outcome decides what the reversal undoes. */
class HeldBySettlement extends Error {}

export interface ReversalOutcome {
  deposit: Deposit;
  /** False when the reversal was already recorded (a repeated notification). */
  reversed: boolean;
  /** USD debited from the merchant (liable for it), 6 places; null when the operator bore it. */
  merchantDebit?: string | null;
}

/** Where a reversal leaves a deposit (docs/api.md, "Deposits"): null keeps the status it has. */
function statusAfterReversal(
  status: DepositStatus,
  converted: boolean,
): { to: DepositStatus; reason?: string } | null {
  switch (status) {
    case 'SETTLED':
      return { to: 'REVERSED' };
    case 'PENDING_FX':
      return { to: 'FAILED', reason: REASON.bankReversed };
    case 'PENDING_WITHDRAWAL':
      return { to: 'FLAGGED', reason: REASON.bankReversalDuringSettlement };
    case 'FLAGGED':
      return converted ? null : { to: 'FAILED', reason: REASON.bankReversed };
    default:
      return null;
  }
}

/**
 * Records a bank reversal: the bank takes the NGN back. Not yet converted, it leaves the
 * account that held it; already converted, the operator absorbs the NGN loss, and when the
 * deposit was SETTLED and its merchant is liable (`REVERSAL_LIABILITY`, or the operator's
 * setting for the merchant) the merchant is debited its amount_asset (`ReserveLedger`), which
 * `deposit.reversed` carries as `merchant_debit`. Once per deposit: a repeated reversal answers the deposit as is.
 * A deposit going back to the payer, or gone back, is `ReturnReversal`'s.
 */
export class DepositReversalService {
  private readonly returnSide: ReturnReversal;

  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly reserves: ReserveLedger,
    private readonly transitions: DepositTransitions,
    private readonly payouts: Pick<DepositPayouts, 'cancelPendingOfDeposit'>,
  ) {
    this.returnSide = new ReturnReversal(clock, ledger, transitions);
  }

  async reverse(
    em: EntityManager,
    bankReference: string,
    options: {
      merchantId?: string;
      /** Runs in the reversal's transaction once it is recorded (the operator's audit entry). */
      onRecorded?: (
        tx: EntityManager,
        deposit: Deposit,
        before: Record<string, unknown>,
      ) => Promise<void>;
    } = {},
  ): Promise<ReversalOutcome> {
    if (!bankReference) throw missingParameter('bank_reference');
    if (!/^[\x21-\x7e]{1,128}$/.test(bankReference)) {
      throw invalidParameter('bank_reference', 'must be 1-128 visible ASCII characters');
    }
    // A bound on real waiting, not business time: the injected clock may stand still in tests.
    const waitUntil = performance.now() + CLAIM_WAIT_MS;
    for (;;) {
      try {
        return await this.reverseOnce(em, bankReference, options);
      } catch (error) {
        if (!(error instanceof HeldBySettlement)) throw error;
        if (performance.now() >= waitUntil) {
          throw new DomainError(
            ErrorCode.ServiceUnavailable,
            'The deposit is being converted right now; retry the reversal in a few seconds',
          );
        }
        await new Promise((resolve) => setTimeout(resolve, CLAIM_POLL_MS));
      }
    }
  }

  /**
   * Once a settlement batch has placed a deposit's FX order, the NGN is sold whatever the bank
   * does: so a reversal waits for the batch to apply its fill (the deposit is then SETTLED and
   * the reversal makes it REVERSED, the operator absorbing the NGN) or to give the deposit up.
   * Recording it as FAILED meanwhile would book NGN returned that the venue already took.
   */
  private reverseOnce(
    em: EntityManager,
    bankReference: string,
    options: Parameters<DepositReversalService['reverse']>[2] = {},
  ): Promise<ReversalOutcome> {
    return retryOnConflict(() =>
      em.fork().transactional(async (tx) => {
        const deposit = await tx.findOne(
          Deposit,
          { bankReference },
          { lockMode: LockMode.PESSIMISTIC_WRITE },
        );
        if (!deposit || (options.merchantId && deposit.merchantId !== options.merchantId)) {
          throw new DomainError(
            ErrorCode.NotFound,
            `No deposit with bank_reference ${bankReference}`,
          );
        }
        if (deposit.reversedAt) return { deposit, reversed: false };
        if (
          deposit.status === 'PENDING_FX' &&
          deposit.settleClaimExpiresAt !== null &&
          deposit.settleClaimExpiresAt > this.clock.now()
        ) {
          throw new HeldBySettlement();
        }
        const before = depositSnapshot(deposit);
        if (ReturnReversal.handles(deposit.status)) {
          await this.returnSide.reverse(tx, deposit);
          await options.onRecorded?.(tx, deposit, before);
          return { deposit, reversed: true };
        }
        const converted = deposit.fxExecutedAt !== null;
        const amountNgn = dec(deposit.amountNgn);
        const heldIn = ngnHoldingOf(deposit.status, converted);
        await this.ledger.post(tx, {
          kind: 'deposit_reversal',
          depositId: deposit.id,
          postings: heldIn
            ? transfer(heldIn, OPERATOR.ngnBank, amountNgn)
            : transfer(OPERATOR.ngnReversalLosses, OPERATOR.ngnBank, amountNgn),
        });
        deposit.reversedAt = this.clock.now();
        if (deposit.status === 'PENDING_WITHDRAWAL') await this.stopPayout(tx, deposit.id);
        const merchantDebit =
          deposit.status === 'SETTLED' && deposit.amountAsset
            ? await this.reserves.debitForReversal(tx, {
                id: deposit.id,
                merchantId: deposit.merchantId,
                amountAsset: deposit.amountAsset,
              })
            : null;
        const next = statusAfterReversal(deposit.status, converted);
        if (next) {
          await this.transitions.moveTo(tx, deposit, next.to, {
            reason: next.reason,
            ngnLeft: true,
          });
        } else {
          await tx.flush();
        }
        // The move wrote deposit.reversed (a trigger); it carries the debit, in this transaction.
        if (merchantDebit) {
          await annotateDepositEvent(tx, deposit.id, 'deposit.reversed', {
            merchant_debit: merchantDebit.toFixed(6),
          });
        }
        await options.onRecorded?.(tx, deposit, before);
        return { deposit, reversed: true, merchantDebit: merchantDebit?.toFixed(6) ?? null };
      }),
    );
  }

  /**
   * A payout not yet signed is cancelled (its USD held in suspense with the FLAGGED deposit).
   * One already signed cannot be recalled: it is mined, booked, and the deposit keeps FLAGGED
   * with the hash, for the operator to review.
   */
  private async stopPayout(tx: EntityManager, depositId: string): Promise<void> {
    // Earlier payouts of a deposit resolved by an operator are closed; only a PENDING one stops.
    await this.payouts.cancelPendingOfDeposit(tx, depositId, 'bank reversal');
  }
}
