import { assetForNgn } from '../../domain/rates';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock';
import { Deposit } from '../../db/entities/deposit.entity';
import { Onramp, SettlementMode } from '../../db/entities/onramp.entity';
import { Rate } from '../../db/entities/rate.entity';
import { retryOnConflict } from '../../db/retry';
import { REASON } from './deposit-reasons';
import {
  merchantAccount,
  OPERATOR,
  transfer,
  type LedgerAccountSpec,
  type Posting,
} from '../ledger/ledger-accounts';
import { Dec, dec } from '../../domain/money';
import { FxPermanentFailure, FxTemporaryFailure, type FxVenue } from '../../adapters/fx/fx-venue';
import type { DepositTransitions } from './deposit-transitions';
import type { LedgerService } from '../ledger/ledger.service';
import type { PayoutService } from '../payouts/payout.service';
import { reportSettled, type SettlementObserver } from './settlement-observer';

export type SettleOutcome = 'SETTLED' | 'PENDING_WITHDRAWAL' | 'FLAGGED' | 'FAILED' | 'skipped';

/**
 * Converts a PENDING_FX deposit: FX at the venue, the ledger postings and the next status
 * commit in one transaction, or the deposit ends FLAGGED (temporary FX failure) or FAILED
 * (permanent). MERCHANT_BALANCE: SETTLED, credited to the merchant. AUTO_WITHDRAW:
 * PENDING_WITHDRAWAL with its payout row, which the payout flow signs and broadcasts. Safe to run any number of times, from any number of job runners:
 * the deposit row lock and the status check make the second run a no-op, and the ledger's
 * unique (deposit, 'deposit_fx') index refuses a second conversion outright.
 */
export class DepositSettlementService {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly transitions: DepositTransitions,
    private readonly venueFor: (em: EntityManager) => FxVenue,
    private readonly payouts: PayoutService,
    /** Told about each MERCHANT_BALANCE deposit settled, after commit (metrics). */
    private readonly onSettled?: SettlementObserver,
  ) {}

  async settle(em: EntityManager, depositId: string): Promise<SettleOutcome> {
    const settled: { deposit?: Deposit } = {};
    const outcome = await retryOnConflict(() =>
      em.fork().transactional((tx) => {
        settled.deposit = undefined;
        return this.settleLocked(tx, depositId, settled);
      }),
    );
    if (outcome === 'SETTLED' && settled.deposit) reportSettled(this.onSettled, settled.deposit);
    return outcome;
  }

  private async settleLocked(
    tx: EntityManager,
    depositId: string,
    settled: { deposit?: Deposit },
  ): Promise<SettleOutcome> {
    const deposit = await tx.findOne(
      Deposit,
      { id: depositId },
      { lockMode: LockMode.PESSIMISTIC_WRITE },
    );
    if (!deposit || deposit.status !== 'PENDING_FX') return 'skipped';
    const onChain = deposit.settlementMode === SettlementMode.AUTO_WITHDRAW;

    const rate = await this.conversionRate(tx, deposit);
    if (!rate) {
      await this.transitions.moveTo(tx, deposit, 'FLAGGED', { reason: REASON.noRate });
      return 'FLAGGED';
    }
    const amountNgn = dec(deposit.amountNgn);
    let usdBought: Dec;
    try {
      const fill = await this.venueFor(tx).execute({
        clientOrderId: deposit.fxOrderId ?? deposit.id,
        merchantId: deposit.merchantId,
        amountNgn,
        marketRateNgnPerUsd: dec(rate.marketRate),
      });
      usdBought = fill.usdBought;
    } catch (error) {
      if (error instanceof FxPermanentFailure) {
        await this.transitions.moveTo(tx, deposit, 'FAILED', { reason: REASON.fxPermanent });
        return 'FAILED';
      }
      if (error instanceof FxTemporaryFailure) {
        await this.transitions.moveTo(tx, deposit, 'FLAGGED', { reason: REASON.fxTemporary });
        return 'FLAGGED';
      }
      throw error;
    }

    const amountAsset = assetForNgn(amountNgn, rate.inverseRate);
    const conversion = {
      kind: 'deposit_fx',
      depositId: deposit.id,
      memo: `rate ${rate.id}`,
      postings: conversionPostings(
        onChain ? OPERATOR.usdPayoutsPending : merchantAccount(deposit.merchantId, 'usd_available'),
        amountNgn,
        usdBought,
        amountAsset,
      ),
    };
    deposit.rateId = rate.id;
    deposit.amountAsset = amountAsset.toFixed(6);
    deposit.fxExecutedAt = this.clock.now();
    if (!onChain) {
      // Crediting the merchant locks their balance row until commit, and every settlement of
      // theirs waits on it: so the credit is the last write, after the status change.
      await this.transitions.moveTo(tx, deposit, 'SETTLED');
      await this.ledger.post(tx, conversion);
      settled.deposit = deposit;
      return 'SETTLED';
    }
    await this.ledger.post(tx, conversion);
    const onramp = await tx.findOneOrFail(Onramp, { id: deposit.onrampId });
    await this.payouts.create(tx, {
      merchantId: deposit.merchantId,
      chain: deposit.chain!,
      asset: deposit.asset!,
      toAddress: onramp.destinationAddress!,
      amount: deposit.amountAsset,
      depositId: deposit.id,
    });
    await this.transitions.moveTo(tx, deposit, 'PENDING_WITHDRAWAL');
    return 'PENDING_WITHDRAWAL';
  }

  /**
   * Short-lived onramps convert at their locked rate, honoured for every deposit received
   * inside its validity; PERMANENT onramps at the rate valid when the FX executes.
   */
  private async conversionRate(tx: EntityManager, deposit: Deposit): Promise<Rate | null> {
    if (deposit.rateId) return tx.findOneOrFail(Rate, { id: deposit.rateId });
    return tx.findOne(
      Rate,
      { to: deposit.asset ?? 'USD', expiresAt: { $gt: this.clock.now() } },
      { orderBy: { createdAt: 'desc' } },
    );
  }
}

/**
 * NGN leaves clearing for the venue; the USD it bought lands in the treasury, owed up to
 * `amount_asset` (to the merchant's balance, or on-chain for AUTO_WITHDRAW) and the rest (the
 * fee spread) earned by the operator.
 */
export function conversionPostings(
  owedTo: LedgerAccountSpec,
  amountNgn: Dec,
  usdBought: Dec,
  amountAsset: Dec,
): Posting[] {
  const spread = usdBought.minus(amountAsset);
  return [
    ...transfer(OPERATOR.ngnClearing, OPERATOR.ngnBank, amountNgn),
    ...transfer(OPERATOR.usdTreasury, owedTo, amountAsset),
    ...(spread.isNeg()
      ? transfer(OPERATOR.usdFxRevenue, OPERATOR.usdTreasury, spread.neg())
      : transfer(OPERATOR.usdTreasury, OPERATOR.usdFxRevenue, spread)),
  ];
}
