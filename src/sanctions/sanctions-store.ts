import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { readRows } from '../db/read-rows';
import { TEXT_ARRAY, textArray } from '../db/text-array';

/** The list in force, as `sanctions_list` describes it. */
export interface ListInForce {
  listDate: string;
  addressCount: number;
  contentSha256: string;
  /** `startup`: the shipped snapshot or SANCTIONS_LIST_PATH; `operator`: an update. */
  origin: 'startup' | 'operator';
  description: string;
  installedAt: Date;
  installedBy: string;
}

export type NewList = ListInForce & { addresses: readonly string[] };

interface ListRow {
  list_date: string;
  address_count: number;
  content_sha256: string;
  origin: ListInForce['origin'];
  description: string;
  installed_at: Date | string;
  installed_by: string;
}

const LIST_COLUMNS = `list_date::text as list_date, address_count, content_sha256, origin,
  description, installed_at, installed_by`;

const listOf = (row: ListRow | undefined): ListInForce | null =>
  row
    ? {
        listDate: row.list_date,
        addressCount: row.address_count,
        contentSha256: row.content_sha256,
        origin: row.origin,
        description: row.description,
        installedAt: new Date(row.installed_at),
        installedBy: row.installed_by,
      }
    : null;

export async function readListInForce(em: EntityManager): Promise<ListInForce | null> {
  const [row] = await readRows<ListRow>(em, `select ${LIST_COLUMNS} from sanctions_list`, []);
  return listOf(row);
}

/**
 * Serialises replacements (EXCLUSIVE mode: writers wait, plain reads do not) and reads the
 * list in force under that lock, in the caller's transaction.
 */
export async function lockListInForce(tx: EntityManager): Promise<ListInForce | null> {
  await executeInTransaction(tx, 'lock table sanctions_list in exclusive mode', []);
  const [row] = await executeInTransaction<ListRow>(
    tx,
    `select ${LIST_COLUMNS} from sanctions_list`,
    [],
  );
  return listOf(row);
}

/**
 * Replaces the list in the caller's transaction (after `lockListInForce`): every address
 * goes, the new ones come, the description row follows. Until commit every other connection
 * still sees the old list whole (MVCC); after it, the new one whole.
 */
export async function replaceList(tx: EntityManager, list: NewList): Promise<void> {
  await executeInTransaction(tx, 'delete from sanctioned_addresses', []);
  if (list.addresses.length > 0) {
    // One comma-separated text parameter (addresses hold no comma): cheaper to send and to
    // split than a JSON array of 100,000 strings.
    await executeInTransaction(
      tx,
      `insert into sanctioned_addresses (address) select unnest(string_to_array(?, ','))`,
      [list.addresses.join(',')],
    );
  }
  await executeInTransaction(
    tx,
    `insert into sanctions_list (id, list_date, address_count, content_sha256, origin,
                                 description, installed_at, installed_by)
     values (1, ?::date, ?, ?, ?, ?, ?, ?)
     on conflict (id) do update set
       list_date = excluded.list_date, address_count = excluded.address_count,
       content_sha256 = excluded.content_sha256, origin = excluded.origin,
       description = excluded.description, installed_at = excluded.installed_at,
       installed_by = excluded.installed_by`,
    [
      list.listDate,
      list.addresses.length,
      list.contentSha256,
      list.origin,
      list.description,
      list.installedAt,
      list.installedBy,
    ],
  );
}

/** The listed ones among `addresses` (lower case) and the list's date, in one statement. */
export async function listedAmong(
  em: EntityManager,
  addresses: readonly string[],
): Promise<{ listDate: string | null; listed: Set<string> }> {
  const [row] = await readRows<{ list_date: string | null; listed: string[] | null }>(
    em,
    `select (select list_date::text from sanctions_list) as list_date,
            (select array_agg(address) from sanctioned_addresses
              where address = any(${TEXT_ARRAY})) as listed`,
    [textArray(addresses)],
  );
  return { listDate: row?.list_date ?? null, listed: new Set(row?.listed ?? []) };
}
