import type { EntityManager } from '@mikro-orm/postgresql';
import { TEXT_ARRAY, textArray } from '../db/text-array';

/** Of these API key ids, the ones not revoked (the websocket re-check of open sockets). */
export async function liveApiKeys(em: EntityManager, ids: string[]): Promise<Set<string>> {
  const rows = await em
    .getConnection()
    .execute<Array<{ id: string }>>(
      `select id from api_keys where id = any(${TEXT_ARRAY}) and revoked_at is null`,
      [textArray(ids)],
    );
  return new Set(rows.map((r) => r.id));
}

/** Of these dashboard session token hashes, the ones neither signed out nor expired at `now`. */
export async function liveDashboardSessions(
  em: EntityManager,
  tokenHashes: string[],
  now: Date,
): Promise<Set<string>> {
  const rows = await em.getConnection().execute<Array<{ token_hash: string }>>(
    `select token_hash from dashboard_sessions
        where token_hash = any(${TEXT_ARRAY}) and signed_out_at is null and expires_at > ?`,
    [textArray(tokenHashes), now],
  );
  return new Set(rows.map((r) => r.token_hash));
}
