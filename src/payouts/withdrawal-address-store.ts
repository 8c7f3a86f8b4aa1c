import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { WithdrawalAddress } from './withdrawal-address.entity';

/** The address book's statements that the ORM's unit of work cannot express (locks, claims). */

const COLUMNS =
  'id, merchant_id, chain, address, label, created_at, active_at, activated_at, deleted_at';

interface AddressRow {
  id: string;
  merchant_id: string;
  chain: string;
  address: string;
  label: string | null;
  created_at: Date | string;
  active_at: Date | string;
  activated_at: Date | string | null;
  deleted_at: Date | string | null;
}

const date = (value: Date | string | null): Date | null =>
  value === null ? null : new Date(value);

function fromRow(row: AddressRow): WithdrawalAddress {
  return Object.assign(new WithdrawalAddress(), {
    id: row.id,
    merchantId: row.merchant_id,
    chain: row.chain,
    address: row.address,
    label: row.label,
    createdAt: new Date(row.created_at),
    activeAt: new Date(row.active_at),
    activatedAt: date(row.activated_at),
    deletedAt: date(row.deleted_at),
  });
}

/**
 * Serialises additions per merchant for the rest of the transaction, so the 100-entry limit
 * and the one-live-entry rule hold under concurrent requests.
 */
export async function lockAddressBook(tx: EntityManager, merchantId: string): Promise<void> {
  await executeInTransaction(tx, 'select pg_advisory_xact_lock(hashtextextended(?, 21))', [
    `withdrawal_addresses:${merchantId}`,
  ]);
}

/** The live entry for this chain and address, if any. */
export async function liveEntry(
  tx: EntityManager,
  merchantId: string,
  chain: string,
  address: string,
): Promise<WithdrawalAddress | null> {
  const rows = await executeInTransaction<AddressRow>(
    tx,
    `select ${COLUMNS} from withdrawal_addresses
      where merchant_id = ? and chain = ? and address = ? and deleted_at is null`,
    [merchantId, chain, address],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

export async function countLiveEntries(tx: EntityManager, merchantId: string): Promise<number> {
  const rows = await executeInTransaction<{ n: string }>(
    tx,
    'select count(*)::text as n from withdrawal_addresses where merchant_id = ? and deleted_at is null',
    [merchantId],
  );
  return Number(rows[0].n);
}

/**
 * The withdrawal's check, inside its transaction: an ACTIVE live entry for the destination,
 * locked FOR SHARE until commit, so a DELETE (an UPDATE of the row) waits for the withdrawal,
 * and a withdrawal that waited for a DELETE finds the row no longer live.
 */
export async function lockActiveEntry(
  tx: EntityManager,
  merchantId: string,
  chain: string,
  address: string,
  now: Date,
): Promise<boolean> {
  const rows = await executeInTransaction<{ id: string }>(
    tx,
    `select id from withdrawal_addresses
      where merchant_id = ? and chain = ? and address = ? and deleted_at is null
        and active_at <= ?
      for share`,
    [merchantId, chain, address, now],
  );
  return rows.length > 0;
}

/** Marks a live entry deleted; null when there is none with that id for this merchant. */
export async function markDeleted(
  tx: EntityManager,
  merchantId: string,
  id: string,
  now: Date,
): Promise<WithdrawalAddress | null> {
  const rows = await executeInTransaction<AddressRow>(
    tx,
    `update withdrawal_addresses set deleted_at = ?
      where id = ? and merchant_id = ? and deleted_at is null
      returning ${COLUMNS}`,
    [now, id, merchantId],
  );
  return rows[0] ? fromRow(rows[0]) : null;
}

/**
 * Claims up to `limit` entries whose activation is due and not yet announced, marking them
 * in the same statement. SKIP LOCKED lets two runners share the work; `activated_at is null`
 * (re-checked after a wait) makes each entry's mark, and so its event, happen once.
 */
export async function claimDueActivations(
  tx: EntityManager,
  now: Date,
  limit: number,
): Promise<WithdrawalAddress[]> {
  const rows = await executeInTransaction<AddressRow>(
    tx,
    `with due as (
       select id from withdrawal_addresses
        where activated_at is null and deleted_at is null and active_at <= ?
        order by active_at, id
        limit ?
        for update skip locked)
     update withdrawal_addresses w set activated_at = ?
       from due where w.id = due.id and w.activated_at is null
     returning ${COLUMNS.split(', ')
       .map((c) => `w.${c}`)
       .join(', ')}`,
    [now, limit, now],
  );
  return rows.map(fromRow);
}
