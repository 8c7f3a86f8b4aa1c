import { assetForNgn } from '../../domain/rates';
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock';
import { Deposit } from '../../db/entities/deposit.entity';
import { Merchant, MerchantStatus } from '../../db/entities/merchant.entity';
import { Onramp, OnrampStatus, OnrampType, SettlementMode } from '../../db/entities/onramp.entity';
import { Rate } from '../../db/entities/rate.entity';
import { executeInTransaction } from '../../db/locks';
import { retryOnConflict } from '../../db/retry';
import { MIN_DEPOSIT_NGN_BY_CHAIN, type Chain } from '../../domain/assets';
import {
  dailyLimitDecision,
  decideArrival,
  type DepositLimits,
  type FirstStatus,
} from './deposit-rules';
import { REASON } from './deposit-reasons';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from '../../domain/errors';
import { newId } from '../../domain/ids';
import { lagosDay } from '../../domain/lagos-day';
import { ngnHoldingOf, OPERATOR, transfer } from '../ledger/ledger-accounts';
import { Dec, dec, isDecimalString } from '../../domain/money';
import { onrampStatusAt } from '../onramps/onramp-status';
import { addToLockedDailyVolume, lockDailyVolume, readDailyVolume } from './daily-volume';
import type { LedgerService } from '../ledger/ledger.service';
import type { VirtualAccountService } from '../onramps/virtual-account.service';

/** One inbound NGN transfer, from the bank adapter or the sandbox. */
export interface InboundTransfer {
  accountNumber: string;
  amountNgn: string;
  bankReference: string;
  senderName?: string | null;
  senderAccount?: string | null;
  senderBank?: string | null;
  /** When the bank says the transfer happened; later than now is taken as now. */
  transferredAt?: Date | null;
}

export type IngestOutcome =
  { kind: 'deposit'; deposit: Deposit; created: boolean } | { kind: 'unmatched'; created: boolean };

export interface IngestOptions {
  /** Sandbox calls: the account must belong to this merchant (else 404, like an unknown one). */
  merchantId?: string;
}

/**
 * The daily totals read early (unlocked) led to another first status than the locked ones at
 * the end: the transaction is rolled back and runs again, deciding under the lock.
 */
class DailyTotalsMoved extends Error {}

/** How a deposit's first status was decided: whether it involved the daily totals, and how. */
interface Decided {
  first: FirstStatus;
  /** The limits were checked: the totals must be locked (and the guess confirmed) before commit. */
  limitChecked: boolean;
}

const sameDecision = (a: FirstStatus, b: FirstStatus): boolean =>
  a.status === b.status &&
  (a.status !== 'FLAGGED' || (b.status === 'FLAGGED' && a.flagReason === b.flagReason));

const BANK_REFERENCE = /^[\x21-\x7e]{1,128}$/;
const ACCOUNT_NUMBER = /^[0-9]{10}$/;
/** 100 billion NGN: far above any real transfer, well inside numeric(20, 2). */
const MAX_AMOUNT_NGN = dec('100000000000');
const SENDER_FIELD_MAX = 200;

/** Validates a transfer's fields; amounts are exact decimal strings with at most 2 places. */
export function parseInboundTransfer(input: InboundTransfer): InboundTransfer {
  if (!input.accountNumber) throw missingParameter('account_number');
  if (!ACCOUNT_NUMBER.test(input.accountNumber)) {
    throw invalidParameter('account_number', 'must be a 10-digit NUBAN');
  }
  if (input.amountNgn === undefined || input.amountNgn === null || input.amountNgn === '') {
    throw missingParameter('amount_ngn');
  }
  if (!isDecimalString(input.amountNgn, 2) || dec(input.amountNgn).lte(0)) {
    throw invalidParameter('amount_ngn', 'must be a positive decimal with at most 2 places');
  }
  if (dec(input.amountNgn).gt(MAX_AMOUNT_NGN)) {
    throw invalidParameter('amount_ngn', `must not exceed ${MAX_AMOUNT_NGN.toFixed()}`);
  }
  if (!input.bankReference) throw missingParameter('bank_reference');
  if (!BANK_REFERENCE.test(input.bankReference)) {
    throw invalidParameter('bank_reference', 'must be 1-128 visible ASCII characters');
  }
  for (const [name, value] of [
    ['sender_name', input.senderName],
    ['sender_account', input.senderAccount],
    ['sender_bank', input.senderBank],
  ] as const) {
    if (value !== undefined && value !== null && value.length > SENDER_FIELD_MAX) {
      throw invalidParameter(name, `must be at most ${SENDER_FIELD_MAX} characters`);
    }
  }
  return { ...input, amountNgn: dec(input.amountNgn).toFixed(2) };
}

function isBankReferenceTaken(error: unknown): boolean {
  const e = error as { code?: string; constraint?: string; message?: string } | null;
  return (
    e?.code === '23505' &&
    (e.constraint === 'deposits_bank_reference_key' ||
      (e.message ?? '').includes('deposits_bank_reference_key'))
  );
}

/**
 * Turns inbound transfers into deposits: the bank adapter's notifications, the sandbox
 * endpoint and mutation, and sandbox auto-simulation all come through `receive`. One
 * transaction inserts the deposit with its first status (the trigger writes its event), books
 * the NGN and counts it against the day's limits; the caller acknowledges after the commit.
 */
export class DepositIngestionService {
  constructor(
    private readonly clock: Clock,
    private readonly limits: DepositLimits,
    private readonly ledger: LedgerService,
    private readonly accounts: VirtualAccountService,
  ) {}

  async receive(
    em: EntityManager,
    input: InboundTransfer,
    options: IngestOptions = {},
  ): Promise<IngestOutcome> {
    const transferIn = parseInboundTransfer(input);
    const known = await this.existing(em, transferIn.bankReference, options);
    if (known) return known;
    try {
      return await retryOnConflict(() => this.ingest(em, transferIn, options));
    } catch (error) {
      // Two notifications with one reference for different accounts raced; the other won.
      if (!isBankReferenceTaken(error)) throw error;
      const winner = await this.existing(em.fork(), transferIn.bankReference, options);
      if (!winner) throw error;
      return winner;
    }
  }

  /**
   * Every deposit that counts against the daily limits serialises on the system's daily
   * total row, held from its lock to commit. So the totals are first read unlocked, and locked
   * only at the end, after the deposit and its ledger entry are written: the lock is held for
   * two statements and the commit instead of the whole transaction. If the locked totals give
   * another first status (only near a limit), the transaction runs again with the lock first.
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

  private async existing(
    em: EntityManager,
    bankReference: string,
    options: IngestOptions,
  ): Promise<IngestOutcome | null> {
    const deposit = await em.findOne(Deposit, { bankReference }, { refresh: true });
    if (deposit) {
      if (options.merchantId && deposit.merchantId !== options.merchantId) {
        throw invalidParameter('bank_reference', 'is already used by another transfer');
      }
      return { kind: 'deposit', deposit, created: false };
    }
    if (options.merchantId) return null;
    // Inside a transaction this must run on its connection: borrowing another from the pool
    // while holding the onramp lock could wait forever on a pool full of our own waiters.
    const unmatched = await em
      .getConnection()
      .execute(
        'select 1 from unmatched_transfers where bank_reference = ?',
        [bankReference],
        'all',
        em.getTransactionContext(),
      );
    return unmatched.length > 0 ? { kind: 'unmatched', created: false } : null;
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
    const onrampId = await this.onrampHolding(tx, input.accountNumber, at);
    // The onramp row lock serialises transfers into one account: a second THROWAWAY transfer
    // sees the first, and a repeated reference sees the deposit the first notification made.
    const onramp = onrampId
      ? await tx.findOne(Onramp, { id: onrampId }, { lockMode: LockMode.PESSIMISTIC_WRITE })
      : null;
    if (!onramp || (options.merchantId && onramp.merchantId !== options.merchantId)) {
      if (options.merchantId) {
        throw new DomainError(
          ErrorCode.NotFound,
          `No onramp of yours has account number ${input.accountNumber}`,
        );
      }
      await this.recordUnmatched(tx, input, now);
      return { kind: 'unmatched', created: true };
    }
    const again = await this.existing(tx, input.bankReference, options);
    if (again) return again;

    const amountNgn = dec(input.amountNgn);
    const rate = await this.pricingRate(tx, onramp, at);
    const amountUsd = rate ? assetForNgn(amountNgn, rate.inverseRate) : dec(0);
    const day = lagosDay(at);
    const { first: decision, limitChecked } = rate
      ? await this.decide(tx, onramp, rate, amountNgn, amountUsd, day, at, lockTotalsFirst)
      : {
          first: { status: 'FLAGGED', flagReason: REASON.noRate } as FirstStatus,
          limitChecked: false,
        };

    const shortLived = onramp.type !== OnrampType.PERMANENT;
    const deposit = tx.create(Deposit, {
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
      status: decision.status,
      failureReason: decision.status === 'FAILED' ? decision.failureReason : null,
      flagReason: decision.status === 'FLAGGED' ? decision.flagReason : null,
      senderName: input.senderName ?? null,
      senderAccount: input.senderAccount ?? null,
      senderBank: input.senderBank ?? null,
      lagosDay: day,
      fxExecutedAt: null,
      reversedAt: null,
      createdAt: at,
      updatedAt: now,
      settledAt: null,
    });
    await tx.flush();
    await this.ledger.post(tx, {
      kind: 'deposit_received',
      depositId: deposit.id,
      postings: transfer(OPERATOR.ngnBank, ngnHoldingOf(deposit.status, false)!, amountNgn),
    });
    // A THROWAWAY takes one transfer: the first completes it and starts its account's cooldown.
    if (onramp.type === OnrampType.THROWAWAY && onrampStatusAt(onramp, at) === 'ACTIVE') {
      onramp.status = OnrampStatus.COMPLETED;
      onramp.updatedAt = now;
      await this.accounts.release(tx, onramp.id);
      await tx.flush();
    }
    if (limitChecked) {
      const totals = await lockDailyVolume(tx, onramp.merchantId, day);
      if (!sameDecision(dailyLimitDecision(amountUsd, totals, this.limits), decision)) {
        throw new DailyTotalsMoved();
      }
      if (decision.status === 'PENDING_FX') {
        await addToLockedDailyVolume(tx, onramp.merchantId, day, amountUsd);
      }
    }
    return { kind: 'deposit', deposit, created: true };
  }

  private async decide(
    tx: EntityManager,
    onramp: Onramp,
    rate: Rate,
    amountNgn: Dec,
    amountUsd: Dec,
    day: string,
    at: Date,
    lockTotalsFirst: boolean,
  ): Promise<Decided> {
    const merchant = await tx.findOneOrFail(
      Merchant,
      { id: onramp.merchantId },
      { fields: ['status'] },
    );
    const priorDeposits = await tx.count(Deposit, { onrampId: onramp.id });
    const chainMinimum = onramp.settlementChain
      ? MIN_DEPOSIT_NGN_BY_CHAIN[onramp.settlementChain as Chain]
      : 0;
    const first = decideArrival(
      {
        onrampType: onramp.type,
        onrampStatus: onrampStatusAt(onramp, at) as OnrampStatus,
        priorDeposits,
        rateExpired: onramp.type !== OnrampType.PERMANENT && rate.expiresAt <= at,
        merchantFrozen: merchant.status === MerchantStatus.FROZEN,
        amountNgn,
        minDepositNgn: Dec.max(dec(rate.minDepositNgn), chainMinimum),
        amountUsd,
      },
      this.limits,
    );
    if (first.status !== 'PENDING_FX') return { first, limitChecked: false };
    const totals = lockTotalsFirst
      ? await lockDailyVolume(tx, onramp.merchantId, day)
      : await readDailyVolume(tx, onramp.merchantId, day);
    return { first: dailyLimitDecision(amountUsd, totals, this.limits), limitChecked: true };
  }

  /**
   * The rate a deposit is priced at for its limits: the onramp's locked rate, or for a
   * PERMANENT onramp the current one (the newest, if none is valid right now).
   */
  private async pricingRate(tx: EntityManager, onramp: Onramp, at: Date): Promise<Rate | null> {
    if (onramp.rateId) return tx.findOneOrFail(Rate, { id: onramp.rateId });
    const to =
      onramp.settlementMode === SettlementMode.AUTO_WITHDRAW ? onramp.settlementAsset! : 'USD';
    return (
      (await tx.findOne(
        Rate,
        { to, expiresAt: { $gt: at } },
        { orderBy: { createdAt: 'desc' } },
      )) ?? (await tx.findOne(Rate, { to }, { orderBy: { createdAt: 'desc' } }))
    );
  }

  /** The onramp that held the account number when the transfer arrived (numbers are reused). */
  private async onrampHolding(
    tx: EntityManager,
    accountNumber: string,
    at: Date,
  ): Promise<string | null> {
    const [row] = await executeInTransaction<{ onramp_id: string }>(
      tx,
      `select onramp_id from virtual_account_assignments
        where account_number = ? and assigned_at <= ?
        order by assigned_at desc limit 1`,
      [accountNumber, at],
    );
    return row?.onramp_id ?? null;
  }

  private async recordUnmatched(
    tx: EntityManager,
    input: InboundTransfer,
    now: Date,
  ): Promise<void> {
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
    if (inserted.length === 0) return;
    await this.ledger.post(tx, {
      kind: 'unmatched_transfer',
      memo: input.bankReference,
      postings: transfer(OPERATOR.ngnBank, OPERATOR.ngnUnmatched, dec(input.amountNgn)),
    });
  }
}
