import type { EntityManager } from '@mikro-orm/postgresql';
import { TEXT_ARRAY, textArray } from '../db/text-array';

/**
 * The stored trace context (`traceparent`) of each of these deposits that has one: what the
 * job runner's webhook spans join (tracing on only; one read per claimed batch, by primary key).
 */
export async function depositTraceParents(
  em: EntityManager,
  depositIds: readonly string[],
): Promise<Map<string, string>> {
  if (depositIds.length === 0) return new Map();
  const rows = await em.getConnection().execute<Array<{ id: string; trace_parent: string }>>(
    `select id, trace_parent from deposits
        where id = any(${TEXT_ARRAY}) and trace_parent is not null`,
    [textArray(depositIds)],
  );
  return new Map(rows.map((row) => [row.id, row.trace_parent]));
}
