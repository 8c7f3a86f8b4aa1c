import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { newId } from '../domain/ids';
import { dec, Dec } from '../domain/money';
import {
  merchantAccount,
  MERCHANT_BUCKETS,
  type LedgerAccountSpec,
  type MerchantBucket,
  type Posting,
} from '../domain/ledger';
import { executeInTransaction } from '../db/locks';

export interface LedgerEntry {
  kind: string;
  depositId?: string | null;
  /** On-chain payouts (AUTO_WITHDRAW deposits and withdrawals): one of each kind per payout. */
  payoutId?: string | null;
  memo?: string;
  postings: Posting[];
}

export interface MerchantBalance {
  merchantId: string;
  /** usd_available less usd_owed: below zero while the merchant owes for a liable reversal. */
  usdAvailable: string;
  usdPendingWithdrawal: string;
  /** Held by the merchant's reserve until released (v0.3). */
  usdReserved: string;
  updatedAt: Date;
}

/**
 * One insert statement for any number of ledger transactions: the accounts they touch
 * (created on first use, in id order so two writers creating the same accounts wait rather
 * than deadlock), the transactions, and all their postings. Rows travel as JSON, one
 * parameter per table, so the statement text is the same whatever the batch size. The
 * postings trigger (Migration20261125000200) checks the statement's postings as a whole and
 * applies their net to merchant balances.
 */
const POST_SQL = `
  with accounts as (
    insert into ledger_accounts (id, merchant_id, currency, normal_side, non_negative, balance, updated_at)
    select a.id, a.merchant_id, a.currency, a.normal_side, a.non_negative,
           case when a.non_negative then 0 end, ?::timestamptz
      from jsonb_to_recordset(?::jsonb)
           as a(id text, merchant_id text, currency text, normal_side text, non_negative boolean)
     order by a.id
    on conflict (id) do nothing
  ), transactions as (
    insert into ledger_transactions (id, kind, deposit_id, payout_id, memo, created_at)
    select t.id, t.kind, t.deposit_id, t.payout_id, t.memo, ?::timestamptz
      from jsonb_to_recordset(?::jsonb)
           as t(id text, kind text, deposit_id text, payout_id text, memo text)
  )
  insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
  select p.transaction_id, p.account_id, p.currency, p.direction, p.amount
    from jsonb_to_recordset(?::jsonb)
         as p(transaction_id text, account_id text, currency text, direction text, amount numeric)`;

/**
 * Writes balanced ledger transactions and reads merchant balances. The database refuses a
 * statement whose transactions do not balance per currency, and a merchant balance below zero.
 */
export class LedgerService {
  constructor(private readonly clock: Clock) {}

  /** Must run inside the caller's transaction; returns the ledger transaction id. */
  async post(tx: EntityManager, entry: LedgerEntry): Promise<string> {
    const [id] = await this.postAll(tx, [entry]);
    return id;
  }

  /**
   * Several ledger transactions (a settlement batch) in the caller's transaction, in ONE
   * statement: all or none are written. Returns their ids in order. A merchant balance is
   * checked against the batch's net per account, not entry by entry.
   */
  async postAll(tx: EntityManager, entries: LedgerEntry[]): Promise<string[]> {
    if (entries.length === 0) return [];
    const now = this.clock.now();
    const ids = entries.map(() => newId('ltx', this.clock));
    const accounts = new Map<string, LedgerAccountSpec>();
    for (const entry of entries) {
      for (const p of entry.postings) accounts.set(p.account.id, p.account);
    }
    await executeInTransaction(tx, POST_SQL, [
      now,
      JSON.stringify(
        [...accounts.values()].map((a) => ({
          id: a.id,
          merchant_id: a.merchantId,
          currency: a.currency,
          normal_side: a.normalSide,
          non_negative: a.nonNegative,
        })),
      ),
      now,
      JSON.stringify(
        entries.map((entry, i) => ({
          id: ids[i],
          kind: entry.kind,
          deposit_id: entry.depositId ?? null,
          payout_id: entry.payoutId ?? null,
          memo: entry.memo ?? null,
        })),
      ),
      JSON.stringify(
        entries.flatMap((entry, i) =>
          entry.postings.map((p) => ({
            transaction_id: ids[i],
            account_id: p.account.id,
            currency: p.account.currency,
            direction: p.direction,
            // Exact decimal as text: numeric parses it, no binary float on the way.
            amount: p.amount.toFixed(),
          })),
        ),
      ),
    ]);
    return ids;
  }

  async balance(em: EntityManager, merchantId: string, since: Date): Promise<MerchantBalance> {
    const ids = MERCHANT_BUCKETS.map((bucket) => merchantAccount(merchantId, bucket).id);
    const rows = await em
      .getConnection()
      .execute<Array<{ id: string; balance: string; updated_at: Date | string }>>(
        `select id, balance::text as balance, updated_at from ledger_accounts
          where id in (${ids.map(() => '?').join(', ')})`,
        ids,
      );
    const of = (bucket: MerchantBucket): Dec =>
      dec(rows.find((r) => r.id === merchantAccount(merchantId, bucket).id)?.balance ?? '0');
    // Raw rows carry timestamps as the driver returns them (strings here): compare as Dates.
    const updatedAt = rows.reduce<Date>((latest, r) => {
      const at = new Date(r.updated_at);
      return at > latest ? at : latest;
    }, since);
    return {
      merchantId,
      usdAvailable: of('usd_available').minus(of('usd_owed')).toFixed(6),
      usdPendingWithdrawal: of('usd_pending_withdrawal').toFixed(6),
      usdReserved: of('usd_reserved').toFixed(6),
      updatedAt,
    };
  }
}
