import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';

/**
 * Writes a `test.ping` event to the outbox (in the caller's transaction) and returns its id.
 * The per-event webhook trigger skips this kind: the caller writes the one delivery, to the
 * endpoint being tested, so endpoints subscribed to `*` do not receive it.
 */
export async function writeTestPingEvent(
  tx: EntityManager,
  merchantId: string,
  endpointId: string,
  at: Date,
): Promise<string> {
  const [row] = await executeInTransaction<{ id: string }>(
    tx,
    `insert into events (id, kind, merchant_id, snapshot, created_at)
     values ('evt_' || replace(gen_random_uuid()::text, '-', ''), 'test.ping', ?,
             jsonb_build_object('endpoint_id', ?::text,
                                'message', 'A test event sent to this endpoint only'), ?)
     returning id`,
    [merchantId, endpointId, at],
  );
  return row.id;
}
