import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { HELD_DEPOSIT_COLUMNS, heldDepositOf, type HeldDeposit } from './settlement-claim';

/** A deposit as `lockPaidOut` returns it: what a move and the settlement observer need. */
export type PaidOutDeposit = HeldDeposit;

/**
 * The deposits whose payouts were just mined: each locked (in id order, so two followers
 * booking the same block wait for each other instead of deadlocking) and given its
 * transfer's hash, in one statement. Returns them as they now are, whatever their status: a
 * deposit FLAGGED meanwhile (a bank reversal during settlement) keeps its status, and the
 * caller moves only those still PENDING_WITHDRAWAL.
 */
export async function lockPaidOut(
  tx: EntityManager,
  hashOf: Map<string, string>,
): Promise<PaidOutDeposit[]> {
  if (hashOf.size === 0) return [];
  const rows = await executeInTransaction<Record<string, string | Date | null>>(
    tx,
    `with locked as materialized (
       select id from deposits
        where id in (select jsonb_array_elements_text(?::jsonb))
        order by id
          for update
     )
     update deposits as d
        set tx_hash = h.hash
       from locked
       join jsonb_to_recordset(?::jsonb) as h(id text, hash text) on h.id = locked.id
      where d.id = locked.id
     returning ${HELD_DEPOSIT_COLUMNS}`,
    [
      JSON.stringify([...hashOf.keys()]),
      JSON.stringify([...hashOf].map(([id, hash]) => ({ id, hash }))),
    ],
  );
  return rows.map(heldDepositOf).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}
