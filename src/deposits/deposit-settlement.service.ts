import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { SettlementMode } from '../domain/onramp-kinds';
import { retryOnConflict } from '../db/retry';
import { newId } from '../domain/ids';
import { assetForNgn } from '../domain/rates';
import { dec } from '../domain/money';
import {
  FxPermanentFailure,
  FxTemporaryFailure,
  placeOrders,
  type FxOutcome,
  type FxVenue,
} from '../adapters/fx/fx-venue';
import { merchantAccount, OPERATOR } from '../domain/ledger';
import type { LedgerEntry, LedgerService, ReserveLedger, SettlementCredit } from '../ledger';
import { onrampDestinations } from '../onramps/onramp-sql';
import type { DepositPayouts } from './deposit-ports';
import { REASON } from '../domain/deposit-reasons';
import type { BatchMove, DepositTransitions } from './deposit-transitions';
import { claimPending, lockHeld, type ClaimedDeposit, type HeldDeposit } from './settlement-claim';
import { conversionPostings } from './conversion-postings';
import { reportSettled, type SettlementObserver } from './settlement-observer';
import { startBatchSpans, type BatchSpans } from '../lib/trace-context';
import type { SanctionsMatch } from '../domain/sanctions-screening';
import { screenClaimed, type Stopped } from './settlement-screening';

import type { BatchResult, SettleOutcome, SettlementOptions } from './settlement-result';

export type { BatchResult, SettleOutcome, SettlementOptions };

/**
 * Converts PENDING_FX deposits in batches, with no network call inside a transaction:
 * 1. claim a batch and record each FX client order id (one statement);
 * 2. place the orders at the venue, outside any transaction (idempotent by client order id);
 * 3. apply the fills in one transaction, only to rows still PENDING_FX and still held by
 *    this run. MERCHANT_BALANCE: SETTLED, credited to the merchant. AUTO_WITHDRAW:
 *    PENDING_WITHDRAWAL with its payout row, which the payout flow signs and broadcasts. FX
 *    failures: FLAGGED (temporary) or FAILED (permanent).
 * A run that dies after 2 leaves its claims to expire; the next claim places the same orders
 * again, gets the same fills and applies them. Two runs never apply one deposit: only the
 * current claim holder applies, and the ledger's unique (deposit, 'deposit_fx') index refuses
 * a second conversion outright.
 */
export class DepositSettlementService {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    /** Reserve holds and debt repayment of balance settlements (docs/api.md, v0.3). */
    private readonly reserves: ReserveLedger,
    private readonly transitions: DepositTransitions,
    private readonly venueFor: (em: EntityManager) => FxVenue,
    private readonly payouts: Pick<DepositPayouts, 'create'>,
    private readonly options: SettlementOptions,
    /** Told about each MERCHANT_BALANCE deposit settled, after commit (metrics). */
    private readonly onSettled?: SettlementObserver,
    private readonly sanctions?: SanctionsMatch,
  ) {}

  /** One batch: the oldest pending deposits no live run holds (or only `ids`). */
  async settleBatch(em: EntityManager, only?: { ids: string[] }): Promise<BatchResult> {
    const claim = newId('stl', this.clock);
    const now = this.clock.now();
    const claimed = await claimPending(em.fork(), {
      claim,
      now,
      expiresAt: new Date(now.getTime() + this.options.claimSeconds * 1000),
      limit: only ? only.ids.length : this.options.batchSize,
      ids: only?.ids,
    });
    const result: BatchResult = {
      claimed: claimed.length,
      outcomes: new Map(),
      deferred: [],
      unapplied: [],
    };
    if (claimed.length === 0) return result;
    // Tracing on: a span per deposit recorded in a traced request, joining its trace.
    const spans = startBatchSpans('deposit.settle', claimed, {
      'onramp.settlement.batch_size': claimed.length,
    });
    try {
      return await this.settleClaimed(em, claim, claimed, result, spans);
    } finally {
      spans.endAll();
    }
  }

  private async settleClaimed(
    em: EntityManager,
    claim: string,
    claimed: ClaimedDeposit[],
    result: BatchResult,
    spans: BatchSpans,
  ): Promise<BatchResult> {
    // Screened before any FX order: a listed destination's deposit is not converted at all.
    const stopped = await screenClaimed(em, claimed, this.sanctions);
    const priced = claimed.filter((c) => c.rateId !== null && !stopped.has(c.id));
    const orderSpans = startBatchSpans(
      'fx.order',
      priced.map((c) => ({ id: c.id, traceParent: spans.traceParentOf(c.id) })),
      { 'onramp.fx.orders': priced.length },
    );
    const fills = await placeOrders(
      this.venueFor(em.fork()),
      priced.map((c) => ({
        clientOrderId: c.fxOrderId,
        merchantId: c.merchantId,
        amountNgn: dec(c.amountNgn),
        marketRateNgnPerUsd: dec(c.marketRate!),
      })),
    ).finally(() => orderSpans.endAll());
    const outcomes = new Map<string, FxOutcome>();
    priced.forEach((c, i) => {
      const outcome = fills[i];
      const error = 'error' in outcome ? outcome.error : undefined;
      orderSpans.end(c.id, { 'onramp.fx.client_order_id': c.fxOrderId }, error);
      if ('error' in outcome && !isFxFailure(outcome.error)) {
        result.deferred.push({ depositId: c.id, error: outcome.error });
        spans.end(c.id, undefined, outcome.error);
      } else {
        outcomes.set(c.id, outcome);
      }
    });
    const ready = claimed.filter(
      (c) => c.rateId === null || outcomes.has(c.id) || stopped.has(c.id),
    );
    const applyInTransaction = (batch: ClaimedDeposit[]) =>
      retryOnConflict(() =>
        em.fork().transactional((tx) => this.apply(tx, claim, batch, outcomes, stopped, spans)),
      );
    let settled: HeldDeposit[];
    try {
      settled = await applyInTransaction(ready);
    } catch (error) {
      if (ready.length <= 1) throw error;
      // One bad row must not hold back the batch (it would fail again on every claim): apply
      // deposit by deposit; one that still fails stays claimed and is retried after expiry.
      settled = [];
      for (const deposit of ready) {
        try {
          settled.push(...(await applyInTransaction([deposit])));
        } catch (single) {
          result.deferred.push({ depositId: deposit.id, error: single });
          spans.end(deposit.id, undefined, single);
        }
      }
    }
    for (const deposit of settled) {
      result.outcomes.set(deposit.id, deposit.status as SettleOutcome);
      spans.end(deposit.id, {
        'onramp.deposit.id': deposit.id,
        'onramp.deposit.status': deposit.status,
      });
      if (deposit.status === 'SETTLED') reportSettled(this.onSettled, deposit);
    }
    const failed = new Set(result.deferred.map((d) => d.depositId));
    result.unapplied = priced
      .filter((c) => outcomes.has(c.id) && !result.outcomes.has(c.id) && !failed.has(c.id))
      .filter((c) => 'fill' in outcomes.get(c.id)!)
      .map((c) => c.id);
    return result;
  }

  /** Settles one deposit now (tests, tools); 'skipped' when it is not PENDING_FX or is held. */
  async settle(em: EntityManager, depositId: string): Promise<SettleOutcome> {
    const result = await this.settleBatch(em, { ids: [depositId] });
    const deferred = result.deferred.find((d) => d.depositId === depositId);
    if (deferred) throw deferred.error;
    return result.outcomes.get(depositId) ?? 'skipped';
  }

  /** Returns the deposits it moved, with their new status. */
  private async apply(
    tx: EntityManager,
    claim: string,
    ready: ClaimedDeposit[],
    outcomes: Map<string, FxOutcome>,
    stopped: Map<string, Stopped>,
    spans: BatchSpans,
  ): Promise<HeldDeposit[]> {
    const held = await lockHeld(
      tx,
      claim,
      ready.map((c) => c.id),
    );
    const claimedById = new Map(ready.map((c) => [c.id, c]));
    const now = this.clock.now();
    const moves: BatchMove[] = [];
    const conversions: Array<{ owedTo: string; entry: LedgerEntry }> = [];
    const onChain: HeldDeposit[] = [];
    const credits: SettlementCredit[] = [];
    for (const deposit of held) {
      const claimed = claimedById.get(deposit.id)!;
      const outcome = outcomes.get(deposit.id);
      const listed = stopped.get(deposit.id);
      if (listed) {
        moves.push({ deposit, to: 'FLAGGED', options: { reason: REASON.sanctionsScreening } });
        await this.sanctions!.recordFlag(tx, {
          merchantId: deposit.merchantId,
          targetType: 'deposit',
          targetId: deposit.id,
          address: listed.address,
          listDate: listed.listDate,
          stage: 'settlement',
        });
        continue;
      }
      if (!claimed.rateId || !outcome) {
        moves.push({ deposit, to: 'FLAGGED', options: { reason: REASON.noRate } });
        continue;
      }
      if ('error' in outcome) {
        const permanent = outcome.error instanceof FxPermanentFailure;
        moves.push({
          deposit,
          to: permanent ? 'FAILED' : 'FLAGGED',
          options: { reason: permanent ? REASON.fxPermanent : REASON.fxTemporary },
        });
        continue;
      }
      const toChain = deposit.settlementMode === SettlementMode.AUTO_WITHDRAW;
      const amountNgn = dec(deposit.amountNgn);
      const amountAsset = assetForNgn(amountNgn, claimed.inverseRate!);
      const owedTo = toChain
        ? OPERATOR.usdPayoutsPending
        : merchantAccount(deposit.merchantId, 'usd_available');
      conversions.push({
        owedTo: owedTo.id,
        entry: {
          kind: 'deposit_fx',
          depositId: deposit.id,
          memo: `rate ${claimed.rateId}`,
          postings: conversionPostings(owedTo, amountNgn, outcome.fill.usdBought, amountAsset),
        },
      });
      deposit.rateId = claimed.rateId;
      deposit.amountAsset = amountAsset.toFixed(6);
      deposit.fxExecutedAt = now;
      moves.push({ deposit, to: toChain ? 'PENDING_WITHDRAWAL' : 'SETTLED' });
      // Reserves and repayment apply to balance settlements only, never to AUTO_WITHDRAW.
      if (toChain) onChain.push(deposit);
      else credits.push({ merchantId: deposit.merchantId, depositId: deposit.id, amountAsset });
    }
    await this.createPayouts(tx, onChain, spans);
    // Merchant balance rows are locked in one order (by account id) by every batch, so two
    // runners' batches crediting the same merchants wait on each other instead of deadlocking.
    conversions.sort((a, b) => (a.owedTo < b.owedTo ? -1 : a.owedTo > b.owedTo ? 1 : 0));
    // Posted after the conversions, in the same statement: usd_available is checked on the net.
    const reserveEntries = await this.reserves.settlementEntries(tx, credits);
    await this.transitions.moveAllTo(tx, moves, [
      ...conversions.map((c) => c.entry),
      ...reserveEntries,
    ]);
    return held;
  }

  /** AUTO_WITHDRAW: the payout of each converted deposit, to its onramp's address. */
  private async createPayouts(
    tx: EntityManager,
    deposits: HeldDeposit[],
    spans: BatchSpans,
  ): Promise<void> {
    if (deposits.length === 0) return;
    const addressOf = await onrampDestinations(tx, [...new Set(deposits.map((d) => d.onrampId))]);
    await this.payouts.create(
      tx,
      deposits.map((deposit) => ({
        merchantId: deposit.merchantId,
        chain: deposit.chain!,
        asset: deposit.asset!,
        toAddress: addressOf.get(deposit.onrampId)!,
        amount: deposit.amountAsset!,
        depositId: deposit.id,
        traceParent: spans.traceParentOf(deposit.id),
      })),
    );
  }
}

function isFxFailure(error: unknown): boolean {
  return error instanceof FxTemporaryFailure || error instanceof FxPermanentFailure;
}
