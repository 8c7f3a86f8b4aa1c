import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../crypto/secret-box';
import type { Onramp } from './onramp.entity';
import { lastFour, type OnrampCustomer } from '../domain/onramp-customer';

/**
 * How an onramp's customer record is kept: sealed whole, with the little that answers show kept
 * plain beside it (which fields were given, the last 4 digits of the BVN and NIN), so reading
 * or listing onramps never opens a sealed value. Names and phone are never shown back.
 */

/** The record's fields: API name and domain name, in the order answers list them. */
const FIELDS = [
  ['first_name', 'firstName'],
  ['last_name', 'lastName'],
  ['phone', 'phone'],
  ['bvn', 'bvn'],
  ['nin', 'nin'],
] as const satisfies readonly (readonly [string, keyof OnrampCustomer])[];

export type CustomerFieldName = (typeof FIELDS)[number][0];

/** What answers show of a customer record. */
export interface CustomerSummary {
  /** The fields given, in the order first_name, last_name, phone, bvn, nin. */
  fields: CustomerFieldName[];
  bvnLast4: string | null;
  ninLast4: string | null;
}

type CustomerColumns = Pick<
  Onramp,
  'customerSealed' | 'customerFields' | 'customerBvnLast4' | 'customerNinLast4'
>;

/** Binds a sealed record to its onramp: copied into another row, it does not open. */
export const customerSealContext = (onrampId: string): string => `onramp_customer:${onrampId}`;

/** The columns a new onramp stores for its customer record (all null when there is none). */
export function customerColumns(
  box: SecretBox,
  onrampId: string,
  customer: OnrampCustomer | null,
): CustomerColumns {
  if (customer === null) {
    return {
      customerSealed: null,
      customerFields: null,
      customerBvnLast4: null,
      customerNinLast4: null,
    };
  }
  const given = FIELDS.filter(([, key]) => customer[key] !== undefined);
  const record = Object.fromEntries(given.map(([name, key]) => [name, customer[key]]));
  return {
    customerSealed: box.seal(JSON.stringify(record), customerSealContext(onrampId)),
    customerFields: given.map(([name]) => name),
    customerBvnLast4: lastFour(customer.bvn),
    customerNinLast4: lastFour(customer.nin),
  };
}

/** The transport-neutral view of an onramp's customer record; null when none was given. */
export function customerSummary(
  onramp: Pick<Onramp, 'customerFields' | 'customerBvnLast4' | 'customerNinLast4'>,
): CustomerSummary | null {
  if (onramp.customerFields === null) return null;
  return {
    fields: FIELDS.map(([name]) => name).filter((name) => onramp.customerFields!.includes(name)),
    bvnLast4: onramp.customerBvnLast4,
    ninLast4: onramp.customerNinLast4,
  };
}

/**
 * The whole customer record of an onramp, opened (for the code that opens its bank account);
 * null when the onramp has none or does not exist. A value no configured key opens throws
 * SecretDecryptError.
 */
export async function openCustomer(
  em: EntityManager,
  box: SecretBox,
  onrampId: string,
): Promise<OnrampCustomer | null> {
  const [row] = await em
    .getConnection()
    .execute<{ customer_sealed: string | null }[]>(
      'select customer_sealed from onramps where id = ?',
      [onrampId],
    );
  if (!row?.customer_sealed) return null;
  const record = JSON.parse(box.open(row.customer_sealed, customerSealContext(onrampId))) as Record<
    string,
    string
  >;
  const customer: OnrampCustomer = {};
  for (const [name, key] of FIELDS) if (record[name] !== undefined) customer[key] = record[name];
  return customer;
}

const BATCH = 500;

/**
 * Seals every customer record not yet under the current key (`onramp secrets reencrypt`). A
 * row is rewritten only if it still holds what was read (safe beside live traffic). Returns
 * the rows rewritten.
 */
export async function resealOnrampCustomers(em: EntityManager, box: SecretBox): Promise<number> {
  const connection = em.getConnection();
  const notCurrent = `enc:v1:${box.currentKeyId}:%`;
  let resealed = 0;
  let after = '';
  for (;;) {
    const rows = await connection.execute<{ id: string; customer_sealed: string }[]>(
      `select id, customer_sealed from onramps
        where id > ? and customer_sealed not like ?
        order by id limit ?`,
      [after, notCurrent, BATCH],
    );
    for (const row of rows) {
      const sealed = box.reseal(row.customer_sealed, customerSealContext(row.id));
      const updated = await connection.execute<{ id: string }[]>(
        `update onramps set customer_sealed = ?
          where id = ? and customer_sealed = ? returning id`,
        [sealed, row.id, row.customer_sealed],
      );
      resealed += updated.length;
    }
    if (rows.length < BATCH) return resealed;
    after = rows[rows.length - 1].id;
  }
}
