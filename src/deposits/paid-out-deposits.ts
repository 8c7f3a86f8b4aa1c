import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { REASON } from '../domain/deposit-reasons';
import type { BatchMove } from './deposit-transitions';
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

/**
 * The moves of deposits whose payouts were just mined (locked as `lockPaidOut` locks them):
 * SETTLED, or FLAGGED if the transfer reverted; only those still PENDING_WITHDRAWAL move.
 */
export async function paidOutMoves(
  tx: EntityManager,
  outcomes: Map<string, { hash: string; success: boolean }>,
): Promise<Array<BatchMove & { deposit: PaidOutDeposit }>> {
  if (outcomes.size === 0) return [];
  const deposits = await lockPaidOut(
    tx,
    new Map([...outcomes].map(([id, outcome]) => [id, outcome.hash])),
  );
  return deposits
    .filter((d) => d.status === 'PENDING_WITHDRAWAL')
    .map((d) => {
      const success = outcomes.get(d.id)!.success;
      return {
        deposit: d,
        to: success ? 'SETTLED' : 'FLAGGED',
        options: success ? {} : { reason: REASON.payoutFailed },
      };
    });
}
