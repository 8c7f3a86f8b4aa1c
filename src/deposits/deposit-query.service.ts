import type { EntityManager } from '@mikro-orm/postgresql';
import { depositViewFromRow, depositViewSelect, type DepositView } from './deposit-view';
import type { DepositViewRow } from './deposit-view';
import { DomainError, ErrorCode, invalidParameter } from '../domain/errors';
import { parseDepositFilter, type DepositFilterInput } from '../domain/deposit-filter';
import { decodeCursor, parseFirst, type Cursor } from '../domain/pagination';
import { lagosDay } from '../domain/lagos-day';
import type { RequestContext } from '../context/request-context';
import {
  forbidden,
  listingOnramp,
  merchantWide,
  readScopeOf,
  type ReadScope,
} from '../context/read-scope';
import { depositConditions, type DepositConditions } from './deposit-conditions';
import { depositStatusEntries } from '../events';
import { readRows } from '../db/read-rows';

/** What a deposit subscription may watch, decided by the caller's context. */
export interface DepositWatch {
  merchantId: string;
  onrampId?: string;
  depositId?: string;
}

export type StatusHistory = Array<{ status: string; event: string; at: Date }>;

/**
 * Reading deposits, always through a request context: its scope (the merchant, and a client
 * secret's one onramp) is part of every query's WHERE, so a row outside it is never loaded.
 * Plain SQL of `DEPOSIT_VIEW_COLUMNS`: the reads clients poll skip the ORM's query building,
 * identity map and hydration, which cost several times the query itself. Newest first
 * (created_at desc, then id desc).
 */
export class DepositQueryService {
  /**
   * One deposit within the context's scope; null when unknown or another merchant's. A client
   * secret asking for a deposit of another onramp of its merchant is 403, as it always was.
   */
  async findView(
    em: EntityManager,
    ctx: RequestContext,
    depositId: string,
  ): Promise<DepositView | null> {
    const scope = readScopeOf(ctx);
    const where = depositConditions(scope, { id: depositId });
    const [row] = await readRows<DepositViewRow>(
      em,
      `select ${depositViewSelect('d0')} from "deposits" as "d0" where ${where.sql} limit 1`,
      where.params,
    );
    if (row) return depositViewFromRow(row);
    if (scope.onrampId !== null) await this.refuseIfOfAnotherOnramp(em, scope, depositId);
    return null;
  }

  /** `findView`, but unknown and another merchant's are 404. */
  async getView(em: EntityManager, ctx: RequestContext, depositId: string): Promise<DepositView> {
    const deposit = await this.findView(em, ctx, depositId);
    if (!deposit) throw new DomainError(ErrorCode.NotFound, `No deposit ${depositId}`);
    return deposit;
  }

  /** An offset page (REST). The filter's onramp is checked against the scope before parsing. */
  async list(
    em: EntityManager,
    ctx: RequestContext,
    input: DepositFilterInput,
    page: { offset: number; limit: number },
  ): Promise<{ deposits: DepositView[]; total: number }> {
    const where = this.listConditions(ctx, input);
    const [rows, total] = await Promise.all([
      this.select(em, where, `offset ${Number(page.offset)}`, page.limit),
      this.count(em, where),
    ]);
    return { deposits: rows, total };
  }

  /**
   * A keyset page for GraphQL connections, strictly after the cursor. `first` and `after`
   * arrive as the client sent them and are checked after the scope and the filter, the order
   * the answers have always had.
   */
  async listAfter(
    em: EntityManager,
    ctx: RequestContext,
    input: DepositFilterInput,
    page: { first: number | null; after: string | null },
  ): Promise<{ deposits: DepositView[]; total: number; hasMore: boolean; after: Cursor | null }> {
    const base = this.listConditions(ctx, input);
    const limit = parseFirst(page.first);
    const after = page.after ? decodeCursor(page.after) : null;
    const where = after
      ? {
          sql: `${base.sql} and ("d0"."created_at" < ? or ("d0"."created_at" = ? and "d0"."id" < ?))`,
          params: [...base.params, after.createdAt, after.createdAt, after.id],
        }
      : base;
    const [rows, total] = await Promise.all([
      this.select(em, where, '', limit + 1),
      this.count(em, base),
    ]);
    return { deposits: rows.slice(0, limit), total, hasMore: rows.length > limit, after };
  }

  /**
   * Each status entry of the given deposits, oldest first (from the outbox), in one query for
   * a whole page, keyed by deposit id: only those within the scope (another merchant's id, an
   * unknown one, or for a client secret another onramp's, maps to nothing).
   */
  async statusHistories(
    em: EntityManager,
    ctx: RequestContext,
    depositIds: readonly string[],
  ): Promise<Map<string, StatusHistory>> {
    const histories = new Map<string, StatusHistory>();
    if (depositIds.length === 0) return histories;
    const scope = readScopeOf(ctx);
    const entries = await depositStatusEntries(em, depositIds, scope);
    for (const e of entries) {
      const list = histories.get(e.depositId) ?? [];
      list.push({ status: e.status, event: e.kind, at: e.createdAt });
      histories.set(e.depositId, list);
    }
    return histories;
  }

  /**
   * What a `depositUpdated` subscription may watch. The merchant is always the caller's own,
   * so another merchant's onramp or deposit id simply matches nothing. A client secret is held
   * to its onramp: naming another onramp, or a deposit of another onramp of its merchant, is
   * 403; an unknown deposit id matches nothing.
   */
  async watch(
    em: EntityManager,
    ctx: RequestContext,
    args: { onrampId?: string | null; depositId?: string | null },
  ): Promise<DepositWatch> {
    const scope = readScopeOf(ctx);
    if (scope.merchantId === null) throw new Error('subscriptions are a merchant read');
    const onrampId = listingOnramp(scope, args.onrampId);
    const depositId = args.depositId || undefined;
    if (depositId && scope.onrampId !== null) {
      await this.refuseIfOfAnotherOnramp(em, scope, depositId);
    }
    return { merchantId: scope.merchantId, onrampId, depositId };
  }

  /**
   * USD (amount_asset) of the merchant's SETTLED deposits per Africa/Lagos day of settlement,
   * for the `days` days up to and including today (the context's clock), oldest first, empty
   * days included. A secret key's read: a client secret is 403.
   */
  async settledVolume(
    em: EntityManager,
    ctx: RequestContext,
    days: number,
  ): Promise<Array<{ day: string; usd: string; count: number }>> {
    const merchantId = merchantWide(ctx);
    if (!Number.isInteger(days) || days < 1 || days > MAX_VOLUME_DAYS) {
      throw invalidParameter('days', `must be an integer from 1 to ${MAX_VOLUME_DAYS}`);
    }
    const today = lagosDay(ctx.clock.now());
    const rows = await em.execute<Array<{ day: string; usd: string; count: number }>>(
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

  /** The scope first (a client secret naming another onramp is 403), then the filter. */
  private listConditions(ctx: RequestContext, input: DepositFilterInput): DepositConditions {
    const scope = readScopeOf(ctx);
    const onrampId = listingOnramp(scope, input.onrampId);
    const filter = parseDepositFilter({ ...input, onrampId });
    return depositConditions(scope, filter);
  }

  private async select(
    em: EntityManager,
    where: DepositConditions,
    offset: string,
    limit: number,
  ): Promise<DepositView[]> {
    const rows = await em.execute<DepositViewRow[]>(
      `select ${depositViewSelect('d0')} from "deposits" as "d0" where ${where.sql}
        order by "d0"."created_at" desc, "d0"."id" desc limit ${Number(limit)} ${offset}`,
      where.params,
    );
    return rows.map(depositViewFromRow);
  }

  private async count(em: EntityManager, where: DepositConditions): Promise<number> {
    const [row] = await em.execute<Array<{ total: number }>>(
      `select count(*)::int as total from "deposits" as "d0" where ${where.sql}`,
      where.params,
    );
    return Number(row.total);
  }

  /**
   * After a scoped read found nothing: a deposit of the client secret's merchant under another
   * onramp is 403 (the answer it has always had); unknown or another merchant's stays absent.
   * Only whether such a deposit exists is read, never the row.
   */
  private async refuseIfOfAnotherOnramp(
    em: EntityManager,
    scope: ReadScope,
    depositId: string,
  ): Promise<void> {
    const rows = await em.execute<unknown[]>(
      'select 1 from "deposits" as "d0" ' +
        'where "d0"."id" = ? and "d0"."merchant_id" = ? and "d0"."onramp_id" <> ? limit 1',
      [depositId, scope.merchantId, scope.onrampId],
    );
    if (rows.length > 0) throw forbidden();
  }
}

export const MAX_VOLUME_DAYS = 366;
