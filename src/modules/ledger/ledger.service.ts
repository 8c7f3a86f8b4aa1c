import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../../clock';
import { newId } from '../../domain/ids';
import { dec, Dec } from '../../domain/money';
import { merchantAccount, type Posting } from './ledger-accounts';
import { executeInTransaction } from '../../db/locks';

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
  usdAvailable: string;
  usdPendingWithdrawal: string;
  updatedAt: Date;
}

/**
 * Writes balanced ledger transactions and reads merchant balances. The database checks
 * every transaction balances per currency at commit and that merchant balances stay >= 0.
 */
export class LedgerService {
  constructor(private readonly clock: Clock) {}

  /** Must run inside the caller's transaction; returns the ledger transaction id. */
  async post(tx: EntityManager, entry: LedgerEntry): Promise<string> {
    const now = this.clock.now();
    const id = newId('ltx', this.clock);
    // Account rows are locked by balance updates: always in id order, so two transactions
    // touching the same merchant accounts cannot deadlock on each other.
    const postings = [...entry.postings].sort((a, b) =>
      a.account.id < b.account.id ? -1 : a.account.id > b.account.id ? 1 : 0,
    );
    const accounts = [...new Map(postings.map((p) => [p.account.id, p.account])).values()];
    if (accounts.length > 0) {
      await executeInTransaction(
        tx,
        `insert into ledger_accounts (id, merchant_id, currency, normal_side, non_negative, balance, updated_at)
         values ${accounts.map(() => '(?, ?, ?, ?, ?, ?, ?)').join(', ')}
         on conflict (id) do nothing`,
        accounts.flatMap((a) => [
          a.id,
          a.merchantId,
          a.currency,
          a.normalSide,
          a.nonNegative,
          a.nonNegative ? '0' : null,
          now,
        ]),
      );
    }
    await executeInTransaction(
      tx,
      `insert into ledger_transactions (id, kind, deposit_id, payout_id, memo, created_at)
       values (?, ?, ?, ?, ?, ?)`,
      [id, entry.kind, entry.depositId ?? null, entry.payoutId ?? null, entry.memo ?? null, now],
    );
    if (postings.length > 0) {
      await executeInTransaction(
        tx,
        `insert into ledger_postings (transaction_id, account_id, currency, direction, amount)
         values ${postings.map(() => '(?, ?, ?, ?, ?)').join(', ')}`,
        postings.flatMap((p) => [
          id,
          p.account.id,
          p.account.currency,
          p.direction,
          p.amount.toFixed(),
        ]),
      );
      const touched = accounts.filter((a) => a.nonNegative).map((a) => a.id);
      if (touched.length > 0) {
        await executeInTransaction(
          tx,
          `update ledger_accounts set updated_at = ? where id in (${touched.map(() => '?').join(', ')})`,
          [now, ...touched],
        );
      }
    }
    return id;
  }

  /**
   * Several ledger transactions in the caller's transaction (a settlement batch); returns
   * their ids in order.
   */
  async postAll(tx: EntityManager, entries: LedgerEntry[]): Promise<string[]> {
    const ids: string[] = [];
    for (const entry of entries) ids.push(await this.post(tx, entry));
    return ids;
  }

  async balance(em: EntityManager, merchantId: string, since: Date): Promise<MerchantBalance> {
    const ids = [
      merchantAccount(merchantId, 'usd_available').id,
      merchantAccount(merchantId, 'usd_pending_withdrawal').id,
    ];
    const rows = await em
      .getConnection()
      .execute<Array<{ id: string; balance: string; updated_at: Date | string }>>(
        'select id, balance::text as balance, updated_at from ledger_accounts where id in (?, ?)',
        ids,
      );
    const of = (id: string): Dec => dec(rows.find((r) => r.id === id)?.balance ?? '0');
    // Raw rows carry timestamps as the driver returns them (strings here): compare as Dates.
    const updatedAt = rows.reduce<Date>((latest, r) => {
      const at = new Date(r.updated_at);
      return at > latest ? at : latest;
    }, since);
    return {
      merchantId,
      usdAvailable: of(ids[0]).toFixed(6),
      usdPendingWithdrawal: of(ids[1]).toFixed(6),
      updatedAt,
    };
  }
}
