import type { EntityManager } from '@mikro-orm/postgresql';
import { OnrampStatus } from '../domain/onramp-kinds';
import { executeInTransaction } from '../db/locks';
import { moveOnrampRows } from './onramp-transitions';

/**
 * SQL over the onramps module's tables for the deposit pipeline's statements, which stay one
 * round trip each: the fragment is composed into the deposits module's arrival read.
 */

/**
 * A `select` of the onramp whose virtual account held the number (first `?`) at the instant
 * (second `?`), locked FOR UPDATE: columns id, merchant_id, type, status, rate_id,
 * payment_reference, user_email, settlement_mode, settlement_asset, settlement_chain, expires_at,
 * amount_ngn (the expected amount, text), payer_name.
 * Meant for a `materialized` CTE, so the lock is taken whatever the outer statement joins.
 */
export const ONRAMP_HOLDING_NUMBER_SQL = `
  select o.id, o.merchant_id, o.type, o.status, o.rate_id, o.payment_reference, o.user_email,
         o.settlement_mode, o.settlement_asset, o.settlement_chain, o.expires_at,
         o.amount_ngn::text as amount_ngn, o.payer_name
    from virtual_account_assignments a
    join onramps o on o.id = a.onramp_id
   where a.account_number = ? and a.assigned_at <= ?
   order by a.assigned_at desc
   limit 1
     for update of o`;

const COMPLETED = moveOnrampRows(OnrampStatus.COMPLETED);

/**
 * A THROWAWAY onramp that took its deposit (row-locked by the arrival read) becomes COMPLETED
 * (`moveOnrampRows`: only from ACTIVE, the one status the caller calls it in) and its virtual
 * account's hand-out ends now, starting the cooldown: one statement, in the
 * caller's transaction. greatest(): a clock behind the allocating process's must not fail the
 * released_at >= assigned_at check.
 */
export async function completeThrowaway(
  tx: EntityManager,
  onrampId: string,
  now: Date,
): Promise<void> {
  await executeInTransaction(
    tx,
    `with completed as (
       update onramps set ${COMPLETED.set}, updated_at = ?
        where id = ? and ${COMPLETED.allowed} returning id
     )
     update virtual_account_assignments set released_at = greatest(?::timestamptz, assigned_at)
      where onramp_id = (select id from completed) and released_at is null`,
    [now, onrampId, now],
  );
}

/** Each onramp's destination address (AUTO_WITHDRAW payouts go there), in one statement. */
export async function onrampDestinations(
  tx: EntityManager,
  onrampIds: string[],
): Promise<Map<string, string>> {
  const rows = await executeInTransaction<{ id: string; destination_address: string }>(
    tx,
    `select id, destination_address from onramps
      where id in (select jsonb_array_elements_text(?::jsonb)) and destination_address is not null`,
    [JSON.stringify(onrampIds)],
  );
  return new Map(rows.map((r) => [r.id, r.destination_address]));
}
