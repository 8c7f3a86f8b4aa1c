import type { EntityManager } from '@mikro-orm/postgresql';
import type { RequestContext } from '../context/request-context';
import { readScopeOf } from '../context/read-scope';
import type { ReportRange } from '../domain/report-range';
import { depositConditions } from './deposit-conditions';
import { depositViewFromRow, depositViewSelect, type DepositView } from './deposit-view';
import type { DepositViewRow } from './deposit-view';

/** Rows read per statement: a chunk is turned into CSV and sent before the next is read. */
export const EXPORT_CHUNK_ROWS = 1000;

/**
 * The context's deposits created within the range, oldest first, in chunks: each chunk is
 * one keyset query (created_at, id) on `deposits_merchant_created_idx`, so memory holds one
 * chunk whatever the period, and no connection or transaction stays open while the client
 * reads (a slow download cannot pin a pooled connection). Rows of a period still open may
 * change status between chunks; each row is written as it was when its chunk was read.
 */
export async function* exportDeposits(
  em: EntityManager,
  ctx: RequestContext,
  range: ReportRange,
  chunkRows = EXPORT_CHUNK_ROWS,
): AsyncGenerator<DepositView[]> {
  const base = depositConditions(readScopeOf(ctx), {
    createdFrom: range.from,
    createdBefore: range.before,
  });
  // The cursor keeps created_at as PostgreSQL's text: a JS Date drops the microseconds, and a
  // row at .123456 would then come again after a cursor of .123.
  let after: { createdAt: string; id: string } | null = null;
  for (;;) {
    const where: { sql: string; params: unknown[] } = after
      ? {
          sql: `${base.sql} and ("d0"."created_at", "d0"."id") > (?::timestamptz, ?)`,
          params: [...base.params, after.createdAt, after.id],
        }
      : base;
    const rows = await em.execute<Array<DepositViewRow & { cursor_at: string }>>(
      `select ${depositViewSelect('d0')}, "d0"."created_at"::text as cursor_at
         from "deposits" as "d0" where ${where.sql}
        order by "d0"."created_at", "d0"."id" limit ${Number(chunkRows)}`,
      where.params,
    );
    if (rows.length === 0) return;
    const views = rows.map(depositViewFromRow);
    yield views;
    if (rows.length < chunkRows) return;
    const last = rows[rows.length - 1];
    after = { createdAt: last.cursor_at, id: views[views.length - 1].id };
  }
}
