import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';

/** A row of `deposit_resolution_links` (the deposits module's table). */
export interface ResolutionLinkRow {
  id: string;
  deposit_id: string;
  merchant_id: string;
  expires_at: Date;
  superseded_at: Date | null;
  used_at: Date | null;
  choice: 'settle' | 'return' | null;
}

const COLUMNS = 'id, deposit_id, merchant_id, expires_at, superseded_at, used_at, choice';

export async function findLink(em: EntityManager, id: string): Promise<ResolutionLinkRow | null> {
  const rows = await em
    .getConnection()
    .execute<ResolutionLinkRow[]>(`select ${COLUMNS} from deposit_resolution_links where id = ?`, [
      id,
    ]);
  return rows[0] ?? null;
}

/** The row locked for the transaction (taken after the deposit's lock: one order everywhere). */
export async function lockLink(tx: EntityManager, id: string): Promise<ResolutionLinkRow | null> {
  const rows = await executeInTransaction<ResolutionLinkRow>(
    tx,
    `select ${COLUMNS} from deposit_resolution_links where id = ? for update`,
    [id],
  );
  return rows[0] ?? null;
}

/** A new link supersedes the deposit's older links that were not used. */
export async function insertLink(
  tx: EntityManager,
  link: { id: string; depositId: string; merchantId: string; expiresAt: Date },
  now: Date,
): Promise<void> {
  await executeInTransaction(
    tx,
    `update deposit_resolution_links set superseded_at = ?
      where deposit_id = ? and superseded_at is null and used_at is null`,
    [now, link.depositId],
  );
  await executeInTransaction(
    tx,
    `insert into deposit_resolution_links (id, deposit_id, merchant_id, created_at, expires_at)
     values (?, ?, ?, ?, ?)`,
    [link.id, link.depositId, link.merchantId, now, link.expiresAt],
  );
}

export async function markUsed(
  tx: EntityManager,
  id: string,
  choice: 'settle' | 'return',
  now: Date,
): Promise<void> {
  await executeInTransaction(
    tx,
    'update deposit_resolution_links set used_at = ?, choice = ? where id = ?',
    [now, choice, id],
  );
}

/** Wrong account numbers sent through all of a deposit's links (they lock together). */
export async function wrongAccountAttempts(em: EntityManager, depositId: string): Promise<number> {
  const rows = await em.getConnection().execute<{ total: number }[]>(
    `select coalesce(sum(failed_attempts), 0)::int as total
         from deposit_resolution_links where deposit_id = ?`,
    [depositId],
  );
  return Number(rows[0]?.total ?? 0);
}

/** One more wrong account number through this link; the deposit's new total. */
export async function countWrongAccount(
  tx: EntityManager,
  linkId: string,
  depositId: string,
): Promise<number> {
  await executeInTransaction(
    tx,
    'update deposit_resolution_links set failed_attempts = failed_attempts + 1 where id = ?',
    [linkId],
  );
  const rows = await executeInTransaction<{ total: number }>(
    tx,
    `select coalesce(sum(failed_attempts), 0)::int as total
       from deposit_resolution_links where deposit_id = ?`,
    [depositId],
  );
  return Number(rows[0]?.total ?? 0);
}
