import type { EntityManager } from '@mikro-orm/postgresql';
import { executeInTransaction } from '../db/locks';
import { TEXT_ARRAY, textArray } from '../db/text-array';

/**
 * Reads of the outbox (`events`) for the modules that present it: webhooks (the body of a
 * delivery, a replay's owner, a log's event kinds) and deposits (status histories). The events
 * module owns the table; nobody else writes SQL on it (the status triggers write it).
 */

/** An outbox row as webhook delivery renders it. */
export interface OutboxEvent {
  id: string;
  /** The outbox's order: a later event of the same object has a higher seq. */
  seq: number;
  kind: string;
  depositId: string | null;
  withdrawalId: string | null;
  snapshot: Record<string, unknown>;
  createdAt: Date;
}

/** The events with these ids, by id (one statement for a claimed batch of deliveries). */
export async function outboxEvents(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, OutboxEvent>> {
  if (ids.length === 0) return new Map();
  const rows = await em.getConnection().execute<Array<Record<string, unknown>>>(
    `select id, seq, kind, deposit_id, withdrawal_id, snapshot, created_at from events
        where id = any(${TEXT_ARRAY})`,
    [textArray([...new Set(ids)])],
  );
  return new Map(
    rows.map((r) => [
      r.id as string,
      {
        id: r.id as string,
        seq: Number(r.seq),
        kind: r.kind as string,
        depositId: (r.deposit_id as string | null) ?? null,
        withdrawalId: (r.withdrawal_id as string | null) ?? null,
        snapshot: r.snapshot as Record<string, unknown>,
        createdAt: new Date(r.created_at as string | Date),
      },
    ]),
  );
}

/** The merchant an event belongs to, if it exists (and is that merchant's, when one is named). */
export async function eventOwner(
  tx: EntityManager,
  eventId: string,
  merchantId: string | null,
): Promise<string | null> {
  const rows = await executeInTransaction<{ merchant_id: string }>(
    tx,
    'select merchant_id from events where id = ? and (?::text is null or merchant_id = ?)',
    [eventId, merchantId, merchantId],
  );
  return rows[0]?.merchant_id ?? null;
}

/** Each event's kind, by id. */
export async function eventKinds(
  em: EntityManager,
  ids: readonly string[],
): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string; kind: string }>>(
      `select id, kind from events where id = any(${TEXT_ARRAY})`,
      [textArray([...new Set(ids)])],
    );
  return new Map(rows.map((r) => [r.id, r.kind]));
}

export interface StatusEntry {
  depositId: string;
  status: string;
  kind: string;
  createdAt: Date;
}

/**
 * Every status entry of these deposits, oldest first, limited to one merchant and, for a
 * client secret, to one onramp (read from the event's own snapshot of the deposit).
 */
export async function depositStatusEntries(
  em: EntityManager,
  depositIds: readonly string[],
  scope: { merchantId: string | null; onrampId: string | null },
): Promise<StatusEntry[]> {
  const conditions = [`e.deposit_id = any(${TEXT_ARRAY})`];
  const params: unknown[] = [textArray([...new Set(depositIds)])];
  if (scope.merchantId !== null) {
    conditions.push('e.merchant_id = ?');
    params.push(scope.merchantId);
  }
  if (scope.onrampId !== null) {
    conditions.push("e.snapshot->>'onramp_id' = ?");
    params.push(scope.onrampId);
  }
  const rows = await em
    .getConnection()
    .execute<Array<{ deposit_id: string; status: string; kind: string; created_at: string }>>(
      `select e.deposit_id, e.status, e.kind, e.created_at from events e
        where ${conditions.join(' and ')} order by e.deposit_id, e.seq`,
      params,
    );
  return rows.map((r) => ({
    depositId: r.deposit_id,
    status: r.status,
    kind: r.kind,
    createdAt: new Date(r.created_at),
  }));
}
