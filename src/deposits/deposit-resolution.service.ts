import { payoutHasEntries, type LedgerService } from '../ledger';
import { assetForNgn } from '../domain/rates';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { Deposit } from './deposit.entity';
import type { PayoutFacts as Payout, RateFacts as Rate, ResolutionReads } from './deposit-ports';
import { REASON } from '../domain/deposit-reasons';
import {
  planResolution,
  ResolutionRefused,
  type Resolution,
  type ResolutionFacts,
} from '../domain/deposit-resolution';
import { DomainError, ErrorCode } from '../domain/errors';
import { newId } from '../domain/ids';
import { OPERATOR, transfer } from '../domain/ledger';
import { dec } from '../domain/money';
import type { DepositTransitions } from './deposit-transitions';
import type { DepositReturnService } from './deposit-returns.service';

/**
 * Manual resolution of FLAGGED deposits (docs/api.md, "Deposits"): to PENDING_FX at the current rate, from
 * where the job runner converts it like any other deposit, or back to the payer (RETURNING,
 * sent by the runner; FAILED 'Returned to sender after review' only when the bank already
 * reversed the transfer). A deposit FLAGGED after FX first has its conversion unwound (see
 * `planResolution`), so both ways start from NGN held in suspense.
 */
export class DepositResolutionService {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    private readonly returns: DepositReturnService,
    /** The deposit's payouts and the rates, from their modules. */
    private readonly reads: ResolutionReads,
  ) {}

  /** The deposit must be row-locked in `tx`. */
  async resolveLocked(
    tx: EntityManager,
    deposit: Deposit,
    resolution: Resolution,
    actor = 'operator',
  ): Promise<void> {
    // The operator tries a refused return again (RETURN_FAILED -> RETURNING).
    if (resolution === 'return' && deposit.status === 'RETURN_FAILED') {
      await this.returns.startReturns(tx, [deposit.id], REASON.returnedToSender, actor, {
        allowRetry: true,
      });
      return;
    }
    const payout = await this.latestPayout(tx, deposit.id);
    const facts = await this.factsOf(tx, deposit, payout);
    let plan;
    try {
      plan = planResolution(facts, resolution);
    } catch (error) {
      if (error instanceof ResolutionRefused) {
        throw new DomainError(ErrorCode.InvalidParameter, error.message);
      }
      throw error;
    }
    // Settling needs a rate now: refuse before anything is written.
    const rate = plan.to === 'PENDING_FX' ? await this.currentRate(tx, deposit) : null;
    if (plan.unwind) await this.unwind(tx, deposit, payout!);
    if (plan.release) await this.release(tx, deposit, payout!);
    if (rate) {
      const quoted = assetForNgn(dec(deposit.amountNgn), rate.inverseRate).toFixed(6);
      deposit.rateId = rate.id;
      deposit.amountAsset = quoted;
      deposit.limitUsd = quoted;
      await this.transitions.moveTo(tx, deposit, 'PENDING_FX');
    } else if (plan.to === 'RETURNING') {
      // Unwound if it was converted: its NGN is in suspense again and goes back to the payer.
      await this.returns.startReturns(tx, [deposit.id], REASON.returnedToSender, actor);
    } else {
      // The bank reversed it: the payer already has the NGN, nothing to send.
      // Its NGN left with the reversal (a FLAGGED 'Reversal during return' one was never
      // converted): nothing to move between holding accounts.
      await this.transitions.moveTo(tx, deposit, 'FAILED', {
        reason: REASON.returnedToSender,
        ngnLeft: deposit.reversedAt !== null,
      });
    }
  }

  /** What decides how the deposit can be resolved (`planResolution`). */
  async factsOf(
    tx: EntityManager,
    deposit: Deposit,
    payout?: Payout | null,
  ): Promise<ResolutionFacts> {
    const latest = payout === undefined ? await this.latestPayout(tx, deposit.id) : payout;
    return {
      status: deposit.status,
      converted: deposit.fxExecutedAt !== null,
      reversed: deposit.reversedAt !== null,
      latestPayout: latest && { status: latest.status, released: await this.released(tx, latest) },
    };
  }

  /** What settling now would credit (the asset and amount at the current rate), or null. */
  async settleQuote(
    tx: EntityManager,
    deposit: Deposit,
  ): Promise<{ asset: string; amount: string } | null> {
    try {
      const rate = await this.currentRate(tx, deposit);
      const amount = assetForNgn(dec(deposit.amountNgn), rate.inverseRate).toFixed(6);
      return { asset: deposit.asset ?? rate.to, amount };
    } catch (error) {
      if (error instanceof DomainError && error.code === ErrorCode.RateUnavailable) return null;
      throw error;
    }
  }

  /**
   * The USD held for the deposit is sold back for its NGN, booked at the original conversion
   * (the treasury desk carries any difference), and the NGN is held in suspense again.
   */
  private async unwind(tx: EntityManager, deposit: Deposit, payout: Payout): Promise<void> {
    await this.ledger.post(tx, {
      kind: 'deposit_unwind',
      depositId: deposit.id,
      payoutId: payout.id,
      memo: `conversion of ${payout.amount} USD unwound by an operator`,
      postings: [
        ...transfer(OPERATOR.usdSuspense, OPERATOR.usdTreasury, dec(payout.amount)),
        ...transfer(OPERATOR.ngnBank, OPERATOR.ngnSuspense, dec(deposit.amountNgn)),
      ],
    });
    deposit.fxExecutedAt = null;
    deposit.amountAsset = null;
    deposit.txHash = null;
    // The venue is idempotent by order id: a new conversion needs a new one.
    deposit.fxOrderId = newId('fxo', this.clock);
  }

  private async release(tx: EntityManager, deposit: Deposit, payout: Payout): Promise<void> {
    await this.ledger.post(tx, {
      kind: 'deposit_release',
      depositId: deposit.id,
      payoutId: payout.id,
      memo: 'bank already returned the NGN; held USD kept by the operator',
      postings: transfer(OPERATOR.usdSuspense, OPERATOR.usdRecoveries, dec(payout.amount)),
    });
  }

  private latestPayout(tx: EntityManager, depositId: string): Promise<Payout | null> {
    return this.reads.latestPayoutOf(tx, depositId);
  }

  private async released(tx: EntityManager, payout: Payout): Promise<boolean> {
    return payoutHasEntries(tx, payout.id, ['deposit_unwind', 'deposit_release']);
  }

  /** The newest valid rate for what the deposit converts to. */
  private async currentRate(tx: EntityManager, deposit: Deposit): Promise<Rate> {
    const to = deposit.rateId
      ? (await this.reads.getRate(tx, deposit.rateId)).to
      : (deposit.asset ?? 'USD');
    const rate = await this.reads.newestValidRate(tx, to, this.clock.now());
    if (!rate) {
      throw new DomainError(
        ErrorCode.RateUnavailable,
        `No valid NGN/${to} rate to settle at; try again once a rate is published`,
      );
    }
    return rate;
  }
}
