import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';

/** An event about something other than a deposit or a withdrawal (their triggers write those). */
export interface MerchantEvent {
  kind: string;
  merchantId: string;
  /** The webhook's `data`, already in its public shape (sent as written, retries included). */
  data: Record<string, unknown>;
  createdAt: Date;
}

/**
 * Writes an outbox row inside the caller's transaction, so the event exists exactly when what
 * it announces does. The `events_webhook_delivery` trigger owes it to the merchant's endpoints
 * (and NOTIFYs the runners) at commit, as it does for withdrawal events. Returns the event id.
 */
export async function writeMerchantEvent(tx: EntityManager, event: MerchantEvent): Promise<string> {
  const rows = await executeInTransaction<{ id: string }>(
    tx,
    `insert into events (id, kind, merchant_id, status, snapshot, created_at)
     values ('evt_' || replace(gen_random_uuid()::text, '-', ''), ?, ?, null, ?::jsonb, ?)
     returning id`,
    [event.kind, event.merchantId, JSON.stringify(event.data), event.createdAt],
  );
  return rows[0].id;
}

/**
 * Adds fields to the data of a deposit's event of `kind`, written in this transaction by the
 * status trigger (before commit, so no delivery has read it): what the deposit row does not
 * hold, such as a reversal's `merchant_debit`. The deposit's public view ignores the extra
 * keys; the webhook envelope adds the ones it knows.
 */
export async function annotateDepositEvent(
  tx: EntityManager,
  depositId: string,
  kind: string,
  extra: Record<string, string>,
): Promise<void> {
  await executeInTransaction(
    tx,
    `update events set snapshot = snapshot || ?::jsonb
      where deposit_id = ? and kind = ?
        and seq = (select max(seq) from events where deposit_id = ? and kind = ?)`,
    [JSON.stringify(extra), depositId, kind, depositId, kind],
  );
}
