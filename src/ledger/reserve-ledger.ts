import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { merchantAccount, OPERATOR, transfer, type Posting } from '../domain/ledger';
import { dec, type Dec } from '../domain/money';
import {
  drawForReversal,
  holdFor,
  releaseAt,
  splitSettlement,
  type ReversalLiability,
} from '../domain/reserves';
import type { LedgerEntry, LedgerService } from './ledger.service';
import { lockMerchantBalances } from './merchant-balances';
import { termsOfMerchants } from './merchant-terms';
import { reserveReleaseEntries } from './reserve-release';

export interface ReserveOptions {
  /** `REVERSAL_LIABILITY`: who bears a reversal when the operator set nothing for the merchant. */
  defaultLiability: ReversalLiability;
  /** `RESERVE_DAY_SECONDS`: the length of a reserve day. */
  daySeconds: number;
}

/** A MERCHANT_BALANCE settlement's credit to the merchant (its `deposit_fx`). */
export interface SettlementCredit {
  merchantId: string;
  depositId: string;
  amountAsset: Dec;
}

/**
 * Reserves and reversal liability on the ledger (docs/api.md, "Losses, reserves and
 * sanctions"). Each hold, release and merchant debit is a balanced ledger transaction, and
 * `reserve_holds` says what each settlement's hold still holds, so `onramp ledger check` can
 * prove usd_reserved against both.
 */
export class ReserveLedger {
  constructor(
    private readonly clock: Clock,
    private readonly ledger: LedgerService,
    private readonly options: ReserveOptions,
  ) {}

  /**
   * The ledger transactions a batch of balance settlements adds to their conversions: each
   * settlement first holds its reserve share (`reserve_hold`), then the rest repays what the
   * merchant owes (`debt_repayment`). Records the holds. The caller posts the entries in the
   * same statement as the conversions (the merchant's usd_available is checked on the net).
   */
  async settlementEntries(
    tx: EntityManager,
    credits: readonly SettlementCredit[],
  ): Promise<LedgerEntry[]> {
    if (credits.length === 0) return [];
    const merchantIds = [...new Set(credits.map((c) => c.merchantId))];
    const owing = await this.merchantsOwing(tx, merchantIds);
    const terms = await termsOfMerchants(tx, merchantIds);
    if (owing.length === 0 && ![...terms.values()].some((t) => t.reserve)) return [];
    // Every account these postings touch, locked now in id order (the trigger's order, so no
    // deadlock with a reversal or another batch), and what the merchants owe re-read under it.
    const balances = await lockMerchantBalances(tx, merchantIds, [
      'usd_available',
      'usd_owed',
      'usd_reserved',
    ]);
    const owed = new Map(merchantIds.map((id) => [id, balances.get(id)!.usd_owed]));
    const now = this.clock.now();
    const entries: LedgerEntry[] = [];
    const holds: unknown[] = [];
    for (const credit of credits) {
      const reserve = terms.get(credit.merchantId)?.reserve ?? null;
      const stillOwed = owed.get(credit.merchantId) ?? dec(0);
      const split = splitSettlement(
        credit.amountAsset,
        holdFor(credit.amountAsset, reserve),
        stillOwed,
      );
      owed.set(credit.merchantId, stillOwed.minus(split.repaid));
      const available = merchantAccount(credit.merchantId, 'usd_available');
      if (!split.held.isZero()) {
        entries.push({
          kind: 'reserve_hold',
          depositId: credit.depositId,
          memo: `${reserve!.percentBps} bps for ${reserve!.holdDays} days`,
          postings: transfer(
            available,
            merchantAccount(credit.merchantId, 'usd_reserved'),
            split.held,
          ),
        });
        holds.push({
          deposit_id: credit.depositId,
          merchant_id: credit.merchantId,
          amount: split.held.toFixed(6),
          release_at: releaseAt(now, reserve!, this.options.daySeconds).toISOString(),
        });
      }
      if (!split.repaid.isZero()) {
        entries.push({
          kind: 'debt_repayment',
          depositId: credit.depositId,
          postings: repayment(credit.merchantId, split.repaid),
        });
      }
    }
    if (holds.length > 0) {
      await executeInTransaction(
        tx,
        `insert into reserve_holds (deposit_id, merchant_id, amount, held_at, release_at)
         select h.deposit_id, h.merchant_id, h.amount, ?::timestamptz, h.release_at
           from jsonb_to_recordset(?::jsonb)
                as h(deposit_id text, merchant_id text, amount numeric, release_at timestamptz)`,
        [now, JSON.stringify(holds)],
      );
    }
    return entries;
  }

  /** The merchants among these that owe something (read without a lock: a hint). */
  private async merchantsOwing(tx: EntityManager, merchantIds: string[]): Promise<string[]> {
    const ids = merchantIds.map((id) => merchantAccount(id, 'usd_owed').id);
    const rows = await executeInTransaction<{ merchant_id: string }>(
      tx,
      `select merchant_id from ledger_accounts
        where id in (${ids.map(() => '?').join(', ')}) and balance > 0`,
      ids,
    );
    return rows.map((r) => r.merchant_id);
  }

  /**
   * A SETTLED deposit reversed: when its merchant is liable, debits the merchant its
   * `amount_asset` (the deposit's own hold first, then other holds oldest first, then
   * usd_available, then into what it owes) in one `merchant_debit`. Answers the debit, or null
   * when the operator bears the loss. The deposit must be row-locked by the caller.
   */
  async debitForReversal(
    tx: EntityManager,
    deposit: { id: string; merchantId: string; amountAsset: string },
  ): Promise<Dec | null> {
    const terms = (await termsOfMerchants(tx, [deposit.merchantId])).get(deposit.merchantId)!;
    if ((terms.reversalLiability ?? this.options.defaultLiability) !== 'merchant') return null;
    const debit = dec(deposit.amountAsset);
    // Holds first, then the accounts (the order a release takes them in).
    const open = await executeInTransaction<{
      deposit_id: string;
      remaining: string;
      held_at: Date | string;
    }>(
      tx,
      `select deposit_id, (amount - drawn)::text as remaining, held_at from reserve_holds
        where merchant_id = ? and released_at is null and amount > drawn
        order by held_at, deposit_id for update`,
      [deposit.merchantId],
    );
    const balances = (
      await lockMerchantBalances(
        tx,
        [deposit.merchantId],
        ['usd_available', 'usd_reserved', 'usd_owed'],
      )
    ).get(deposit.merchantId)!;
    const draw = drawForReversal(
      debit,
      deposit.id,
      open.map((h) => ({
        depositId: h.deposit_id,
        remaining: dec(h.remaining),
        heldAt: new Date(h.held_at),
      })),
      balances.usd_available,
    );
    const fromHolds = draw.fromHolds.reduce((sum, h) => sum.plus(h.amount), dec(0));
    const legs: Posting[] = [
      {
        account: merchantAccount(deposit.merchantId, 'usd_reserved'),
        direction: 'DEBIT',
        amount: fromHolds,
      },
      {
        account: merchantAccount(deposit.merchantId, 'usd_available'),
        direction: 'DEBIT',
        amount: draw.fromAvailable,
      },
      {
        account: merchantAccount(deposit.merchantId, 'usd_owed'),
        direction: 'DEBIT',
        amount: draw.owed,
      },
      { account: OPERATOR.usdMerchantDebits, direction: 'CREDIT', amount: debit },
    ];
    if (draw.fromHolds.length > 0) {
      await executeInTransaction(
        tx,
        `update reserve_holds h set drawn = h.drawn + d.amount
           from jsonb_to_recordset(?::jsonb) as d(deposit_id text, amount numeric)
          where h.deposit_id = d.deposit_id`,
        [
          JSON.stringify(
            draw.fromHolds.map((h) => ({ deposit_id: h.depositId, amount: h.amount.toFixed(6) })),
          ),
        ],
      );
    }
    await this.ledger.post(tx, {
      kind: 'merchant_debit',
      depositId: deposit.id,
      memo: 'reversal: the merchant is liable',
      postings: legs.filter((leg) => !leg.amount.isZero()),
    });
    return debit;
  }

  /**
   * Releases holds due by now, up to `limit`, one transaction per run: usd_reserved to
   * usd_available per merchant (`reserve_release`), repaying what the merchant owes first, and
   * one `balance.reserve_released` event per merchant. Answers how many holds it released.
   */
  async releaseDue(em: EntityManager, limit: number): Promise<number> {
    return em
      .fork()
      .transactional((tx) => reserveReleaseEntries(tx, this.ledger, this.clock.now(), limit));
  }
}

/** What a merchant owes paid back from its usd_available. */
export function repayment(merchantId: string, amount: Dec): Posting[] {
  return transfer(
    merchantAccount(merchantId, 'usd_available'),
    merchantAccount(merchantId, 'usd_owed'),
    amount,
  );
}
