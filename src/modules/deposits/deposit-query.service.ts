import type { EntityManager, FilterQuery } from '@mikro-orm/postgresql';
import type { DepositView } from './deposit-view';
import { afterCursor, NEWEST_FIRST } from '../../db/keyset';
import { Deposit } from '../../db/entities/deposit.entity';
import { DomainError, ErrorCode, invalidParameter } from '../../domain/errors';
import type { DepositFilter } from './deposit-filter';
import type { Cursor } from '../../domain/pagination';
import { TEXT_ARRAY, textArray } from '../../db/text-array';

function whereOf(merchantId: string, filter: DepositFilter): FilterQuery<Deposit> {
  const createdAt: Record<string, Date> = {};
  if (filter.createdFrom) createdAt.$gte = filter.createdFrom;
  if (filter.createdBefore) createdAt.$lt = filter.createdBefore;
  return {
    merchantId,
    ...(filter.onrampId ? { onrampId: filter.onrampId } : {}),
    ...(filter.status ? { status: filter.status } : {}),
    ...(Object.keys(createdAt).length > 0 ? { createdAt } : {}),
    ...(filter.updatedSince ? { updatedAt: { $gte: filter.updatedSince } } : {}),
  } as FilterQuery<Deposit>;
}

/**
 * One deposit as the API shows it, by id and merchant: the read clients poll, so it skips the
 * ORM (query building, identity map, hydration cost several times the query itself) and maps
 * the row as MikroORM would (numerics stay strings; timestamps parsed by the platform).
 */
export const DEPOSIT_VIEW_SQL =
  'select "d0"."id", "d0"."onramp_id", "d0"."merchant_id", "d0"."payment_reference", ' +
  '"d0"."user_email", "d0"."amount_ngn", "d0"."bank_reference", "d0"."rate_id", ' +
  '"d0"."amount_asset", "d0"."asset", "d0"."chain", "d0"."tx_hash", "d0"."status", ' +
  '"d0"."failure_reason", "d0"."flag_reason", "d0"."created_at", "d0"."settled_at", ' +
  '"d0"."updated_at" from "deposits" as "d0" where "d0"."id" = ? and "d0"."merchant_id" = ? limit 1';

interface DepositViewRow {
  id: string;
  onramp_id: string;
  merchant_id: string;
  payment_reference: string;
  user_email: string;
  amount_ngn: string;
  bank_reference: string;
  rate_id: string | null;
  amount_asset: string | null;
  asset: string | null;
  chain: string | null;
  tx_hash: string | null;
  status: DepositView['status'];
  failure_reason: string | null;
  flag_reason: string | null;
  created_at: string;
  settled_at: string | null;
  updated_at: string;
}

/** Reading deposits for polling: newest first (created_at desc, then id desc). */
export class DepositQueryService {
  /** The API's view of one deposit of this merchant; null when unknown or another's. */
  async findView(
    em: EntityManager,
    merchantId: string,
    depositId: string,
  ): Promise<DepositView | null> {
    const [row] = await em.execute<DepositViewRow[]>(DEPOSIT_VIEW_SQL, [depositId, merchantId]);
    if (!row) return null;
    const platform = em.getPlatform();
    const date = (value: string) => platform.parseDate(value) as Date;
    return {
      id: row.id,
      onrampId: row.onramp_id,
      merchantId: row.merchant_id,
      paymentReference: row.payment_reference,
      userEmail: row.user_email,
      amountNgn: row.amount_ngn,
      bankReference: row.bank_reference,
      rateId: row.rate_id,
      amountAsset: row.amount_asset,
      asset: row.asset,
      chain: row.chain,
      txHash: row.tx_hash,
      status: row.status,
      failureReason: row.failure_reason,
      flagReason: row.flag_reason,
      createdAt: date(row.created_at),
      settledAt: row.settled_at === null ? null : date(row.settled_at),
      updatedAt: date(row.updated_at),
    };
  }

  /** `findView`, but another merchant's id is 404 like an unknown one. */
  async getView(em: EntityManager, merchantId: string, depositId: string): Promise<DepositView> {
    const deposit = await this.findView(em, merchantId, depositId);
    if (!deposit) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
    return deposit;
  }

  async find(em: EntityManager, merchantId: string, depositId: string): Promise<Deposit | null> {
    return em.findOne(Deposit, { id: depositId, merchantId });
  }

  /** Another merchant's id is 404 like an unknown one. */
  async get(em: EntityManager, merchantId: string, depositId: string): Promise<Deposit> {
    const deposit = await this.find(em, merchantId, depositId);
    if (!deposit) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
    return deposit;
  }

  async list(
    em: EntityManager,
    merchantId: string,
    filter: DepositFilter,
    page: { offset: number; limit: number },
  ): Promise<{ deposits: Deposit[]; total: number }> {
    const [deposits, total] = await em.findAndCount(Deposit, whereOf(merchantId, filter), {
      orderBy: NEWEST_FIRST,
      offset: page.offset,
      limit: page.limit,
    });
    return { deposits, total };
  }

  /** Keyset page for GraphQL connections, strictly after the cursor. */
  async listAfter(
    em: EntityManager,
    merchantId: string,
    filter: DepositFilter,
    after: Cursor | null,
    limit: number,
  ): Promise<{ deposits: Deposit[]; total: number; hasMore: boolean }> {
    const base = whereOf(merchantId, filter);
    const where = afterCursor(base, after);
    const [rows, total] = await Promise.all([
      em.find(Deposit, where as FilterQuery<Deposit>, { orderBy: NEWEST_FIRST, limit: limit + 1 }),
      em.count(Deposit, base),
    ]);
    return { deposits: rows.slice(0, limit), total, hasMore: rows.length > limit };
  }

  /**
   * Each status entry of the given deposits, oldest first (from the outbox), in one query for
   * a whole page: keyed by deposit id, only the merchant's own (another merchant's id, or an
   * unknown one, maps to nothing).
   */
  async statusHistories(
    em: EntityManager,
    merchantId: string,
    depositIds: readonly string[],
  ): Promise<Map<string, Array<{ status: string; event: string; at: Date }>>> {
    const histories = new Map<string, Array<{ status: string; event: string; at: Date }>>();
    if (depositIds.length === 0) return histories;
    const rows = await em
      .getConnection()
      .execute<Array<{ deposit_id: string; status: string; kind: string; created_at: string }>>(
        `select deposit_id, status, kind, created_at from events
          where merchant_id = ? and deposit_id = any(${TEXT_ARRAY})
          order by deposit_id, seq`,
        [merchantId, textArray([...new Set(depositIds)])],
      );
    for (const r of rows) {
      const list = histories.get(r.deposit_id) ?? [];
      list.push({ status: r.status, event: r.kind, at: new Date(r.created_at) });
      histories.set(r.deposit_id, list);
    }
    return histories;
  }

  /**
   * USD (amount_asset) of the merchant's SETTLED deposits per Africa/Lagos day of settlement,
   * for the `days` days up to and including `today`, oldest first, empty days included.
   */
  async settledVolume(
    em: EntityManager,
    merchantId: string,
    today: string,
    days: number,
  ): Promise<Array<{ day: string; usd: string; count: number }>> {
    if (!Number.isInteger(days) || days < 1 || days > MAX_VOLUME_DAYS) {
      throw invalidParameter('days', `must be an integer from 1 to ${MAX_VOLUME_DAYS}`);
    }
    const rows = await em
      .getConnection()
      .execute<Array<{ day: string; usd: string; count: number }>>(
        `with days as (
         select generate_series(?::date - (? - 1), ?::date, interval '1 day')::date as day
       )
       select to_char(days.day, 'YYYY-MM-DD') as day,
              coalesce(sum(d.amount_asset), 0)::numeric(26, 6)::text as usd,
              count(d.id)::int as count
         from days
         left join deposits d
           on d.merchant_id = ? and d.status = 'SETTLED'
          and (d.settled_at at time zone 'Africa/Lagos')::date = days.day
        group by days.day
        order by days.day`,
        [today, days, today, merchantId],
      );
    return rows.map((r) => ({ day: r.day, usd: r.usd, count: Number(r.count) }));
  }
}

export const MAX_VOLUME_DAYS = 366;
