import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { retryOnConflict } from '../db/retry';
import { MIN_DEPOSIT_NGN_BY_CHAIN, type Chain } from '../domain/assets';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import { newId } from '../domain/ids';
import { lagosDay } from '../domain/lagos-day';
import { Dec, dec } from '../domain/money';
import { assetForNgn } from '../domain/rates';
import { ngnHoldingOf, OPERATOR, transfer } from '../domain/ledger';
import type { LedgerService } from '../ledger';
import { onrampStatusAt } from '../domain/onramp-status';
import { completeThrowaway } from '../onramps/onramp-sql';
import {
  readArrival,
  readDepositByReference,
  type ArrivalRead,
  type ArrivingOnramp,
} from './arrival-read';
import { addToDailyVolume, lockDailyVolume } from './daily-volume';
import { REASON } from '../domain/deposit-reasons';
import {
  dailyLimitDecision,
  decideArrival,
  firstStatusReason,
  type DepositLimits,
  type FirstStatus,
} from '../domain/deposit-rules';
import type { DepositView } from './deposit-view';
import { parseInboundTransfer, type InboundTransfer } from '../domain/inbound-transfer';
import type { DepositReturnService } from './deposit-returns.service';
import { insertDeposit, type NewDeposit } from './new-deposit';
import { moveDeposit, type MovedColumns } from './deposit-move';

export { parseInboundTransfer, type InboundTransfer } from '../domain/inbound-transfer';

export type IngestOutcome =
  | { kind: 'deposit'; deposit: DepositView; created: boolean }
  | { kind: 'unmatched'; created: boolean };

export interface IngestOptions {
  /** Sandbox calls: the account must belong to this merchant (else 404, like an unknown one). */
  merchantId?: string;
}

/**
 * The daily totals read early (unlocked) led to another first status than the locked ones at
 * the end: the transaction is rolled back and runs again, deciding under the lock.
 */
class DailyTotalsMoved extends Error {}

const sameDecision = (a: FirstStatus, b: FirstStatus): boolean =>
  a.status === b.status &&
  (a.status !== 'FLAGGED' || (b.status === 'FLAGGED' && a.flagReason === b.flagReason));

/**
 * Turns inbound transfers into deposits: the bank adapter's notifications, the sandbox
 * endpoint and mutation, and sandbox auto-simulation all come through `receive`. One short
 * transaction of plain statements: one read of everything the rules need (the onramp locked),
 * the deposit insert (its trigger writes the event), the ledger entry, a THROWAWAY's completion
 * and the day's totals; the caller acknowledges after the commit.
 */
export class DepositIngestionService {
  constructor(
    private readonly clock: Clock,
    private readonly limits: DepositLimits,
    private readonly ledger: LedgerService,
    /** Starts the returns a payment rule asks for (absent: such deposits stay FLAGGED). */
    private readonly returns?: DepositReturnService,
  ) {}

  async receive(
    em: EntityManager,
    input: InboundTransfer,
    options: IngestOptions = {},
  ): Promise<IngestOutcome> {
    const transferIn = parseInboundTransfer(input);
    return retryOnConflict(() => this.ingest(em, transferIn, options));
  }

  /**
   * Every deposit that counts against the daily limits serialises on the system's daily
   * total row, held from its lock to commit. So the totals are read unlocked with the rest,
   * and locked only at the end, after the deposit and its ledger entry are written: the lock is
   * held for one statement and the commit. If the locked totals give another first status
   * (only near a limit), the transaction runs again with the lock taken before deciding.
   */
  private async ingest(
    em: EntityManager,
    input: InboundTransfer,
    options: IngestOptions,
  ): Promise<IngestOutcome> {
    try {
      return await em.fork().transactional((tx) => this.receiveLocked(tx, input, options, false));
    } catch (error) {
      if (!(error instanceof DailyTotalsMoved)) throw error;
      return em.fork().transactional((tx) => this.receiveLocked(tx, input, options, true));
    }
  }

  private async receiveLocked(
    tx: EntityManager,
    input: InboundTransfer,
    options: IngestOptions,
    lockTotalsFirst: boolean,
  ): Promise<IngestOutcome> {
    const now = this.clock.now();
    const at =
      input.transferredAt && input.transferredAt.getTime() < now.getTime()
        ? input.transferredAt
        : now;
    const day = lagosDay(at);
    const arrival = await readArrival(tx, input, at, day);
    if (arrival.known) return known(arrival.known, options);
    if (!options.merchantId && arrival.knownUnmatched) return { kind: 'unmatched', created: false };
    const onramp = arrival.onramp;
    if (!onramp || (options.merchantId && onramp.merchantId !== options.merchantId)) {
      if (options.merchantId) {
        throw new DomainError(
          ErrorCode.NotFound,
          `No onramp of yours has account number ${input.accountNumber}`,
        );
      }
      return { kind: 'unmatched', created: await this.recordUnmatched(tx, input, now) };
    }

    const amountNgn = dec(input.amountNgn);
    const rate = arrival.rate;
    const amountUsd = rate ? assetForNgn(amountNgn, rate.inverseRate) : dec(0);
    const first = rate
      ? this.arrivalStatus(arrival, onramp, amountNgn, amountUsd, at, input.senderName ?? null)
      : ({ status: 'FLAGGED', flagReason: REASON.noRate } as FirstStatus);
    // Only a transfer that passes every other rule is checked against the day's totals.
    const limitChecked = first.status === 'PENDING_FX';
    const decision = limitChecked
      ? dailyLimitDecision(
          amountUsd,
          lockTotalsFirst ? await lockDailyVolume(tx, onramp.merchantId, day) : arrival.totals,
          this.limits,
        )
      : first;

    const shortLived = onramp.type !== 'PERMANENT';
    const deposit: Omit<NewDeposit, keyof MovedColumns> & Partial<MovedColumns> = {
      id: newId('dep', this.clock),
      onrampId: onramp.id,
      merchantId: onramp.merchantId,
      paymentReference: onramp.paymentReference,
      userEmail: onramp.userEmail,
      accountNumber: input.accountNumber,
      bankReference: input.bankReference,
      amountNgn: amountNgn.toFixed(2),
      rateId: shortLived ? onramp.rateId : null,
      amountAsset: shortLived && decision.status === 'PENDING_FX' ? amountUsd.toFixed(6) : null,
      limitUsd: amountUsd.toFixed(6),
      asset: onramp.settlementAsset ?? (shortLived && rate ? rate.to : 'USD'),
      chain: onramp.settlementChain,
      settlementMode: onramp.settlementMode,
      txHash: null,
      senderName: input.senderName ?? null,
      senderAccount: input.senderAccount ?? null,
      // What the database generates (right(sender_account, 4)), for the answer of this call.
      senderAccountLast4: input.senderAccount ? input.senderAccount.slice(-4) : null,
      senderBank: input.senderBank ?? null,
      lagosDay: day,
      createdAt: at,
      settledAt: null,
    };
    // Its first status, as the rules decided: checked against the table's initial ones.
    moveDeposit(deposit, decision.status, { reason: firstStatusReason(decision) }, now);
    if (!(await insertDeposit(tx, deposit))) {
      // Two notifications with one reference raced (for other accounts, or missed by the
      // arrival read's snapshot); the other committed first and its deposit is the answer.
      const winner = await readDepositByReference(tx, input.bankReference);
      if (!winner) throw new Error(`bank reference ${input.bankReference} taken, yet no deposit`);
      return known(winner, options);
    }
    await this.ledger.post(tx, {
      kind: 'deposit_received',
      depositId: deposit.id,
      postings: transfer(OPERATOR.ngnBank, ngnHoldingOf(deposit.status, false)!, amountNgn),
    });
    // A payment rule whose action is `return` flags the deposit with its reason, then starts the
    // return in this transaction (the runner sends it). A transfer whose paying account the bank
    // did not name cannot go back: it stays FLAGGED for the merchant or the operator.
    let answer: DepositView = deposit;
    if (
      decision.status === 'FLAGGED' &&
      decision.returnToPayer &&
      deposit.senderAccount &&
      this.returns
    ) {
      const [returning] = await this.returns.startReturns(
        tx,
        [deposit.id],
        decision.flagReason,
        'payment_rules',
      );
      // The answer shows the status the return moved the row to (the rest as inserted).
      answer = { ...deposit, status: returning.status };
    }
    // A THROWAWAY takes one transfer: the first completes it and starts its account's cooldown.
    if (onramp.type === 'THROWAWAY' && onrampStatusAt(onramp, at) === 'ACTIVE') {
      await completeThrowaway(tx, onramp.id, now);
    }
    if (limitChecked) {
      const counted = decision.status === 'PENDING_FX' ? amountUsd : dec(0);
      if (lockTotalsFirst) {
        if (!counted.isZero()) await addToDailyVolume(tx, onramp.merchantId, day, counted);
      } else {
        // Lock, count and read in one statement; the totals before this deposit confirm the
        // decision made on the unlocked read, or the whole transaction runs again.
        const after = await addToDailyVolume(tx, onramp.merchantId, day, counted);
        const before = {
          merchantUsd: after.merchantUsd.minus(counted),
          systemUsd: after.systemUsd.minus(counted),
        };
        if (!sameDecision(dailyLimitDecision(amountUsd, before, this.limits), decision)) {
          throw new DailyTotalsMoved();
        }
      }
    }
    return { kind: 'deposit', deposit: answer, created: true };
  }

  /** The spec's rules up to the per-deposit limit; the daily limits are decided after. */
  private arrivalStatus(
    arrival: ArrivalRead,
    onramp: ArrivingOnramp,
    amountNgn: Dec,
    amountUsd: Dec,
    at: Date,
    senderName: string | null,
  ): FirstStatus {
    const rate = arrival.rate!;
    const payerName = (input: string | null) => (input && input.trim() !== '' ? input : null);
    const chainMinimum = onramp.settlementChain
      ? MIN_DEPOSIT_NGN_BY_CHAIN[onramp.settlementChain as Chain]
      : 0;
    return decideArrival(
      {
        onrampType: onramp.type,
        onrampStatus: onrampStatusAt(onramp, at) as ArrivingOnramp['status'],
        priorDeposits: arrival.priorDeposits,
        rateExpired: onramp.type !== 'PERMANENT' && rate.expiresAt <= at,
        merchantFrozen: arrival.merchantFrozen,
        amountNgn,
        minDepositNgn: Dec.max(dec(rate.minDepositNgn), chainMinimum),
        amountUsd,
        expectedNgn: onramp.amountNgn === null ? null : dec(onramp.amountNgn),
        expectedPayerName: payerName(onramp.payerName),
        payerName: payerName(senderName),
        rules: arrival.paymentRules,
      },
      this.limits,
    );
  }

  /** Records a transfer no onramp held; true when this call recorded it (first time). */
  private async recordUnmatched(
    tx: EntityManager,
    input: InboundTransfer,
    now: Date,
  ): Promise<boolean> {
    const inserted = await executeInTransaction(
      tx,
      `insert into unmatched_transfers
         (bank_reference, account_number, amount_ngn, sender_name, sender_account, sender_bank, received_at)
       values (?, ?, ?, ?, ?, ?, ?) on conflict (bank_reference) do nothing
       returning bank_reference`,
      [
        input.bankReference,
        input.accountNumber,
        input.amountNgn,
        input.senderName ?? null,
        input.senderAccount ?? null,
        input.senderBank ?? null,
        now,
      ],
    );
    if (inserted.length === 0) return false;
    await this.ledger.post(tx, {
      kind: 'unmatched_transfer',
      memo: input.bankReference,
      postings: transfer(OPERATOR.ngnBank, OPERATOR.ngnUnmatched, dec(input.amountNgn)),
    });
    return true;
  }
}

/** A repeated reference answers its deposit; in the sandbox, only to the merchant it is of. */
function known(deposit: DepositView, options: IngestOptions): IngestOutcome {
  if (options.merchantId && deposit.merchantId !== options.merchantId) {
    throw invalidParameter('bank_reference', 'is already used by another transfer');
  }
  return { kind: 'deposit', deposit, created: false };
}
