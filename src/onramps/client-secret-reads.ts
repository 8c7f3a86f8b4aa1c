import type { EntityManager } from '@mikro-orm/postgresql';
import { TEXT_ARRAY, textArray } from '../db/text-array';

/**
 * The onramp a client secret belongs to, by the secret's hash, for authentication (one plain
 * statement on every request a client secret makes). The onramp stops taking money at
 * `closed_at` (set when its status leaves ACTIVE) or at its TTL (`expires_at`: EXPIRED is
 * derived at read time, the sweep persists it later), whichever comes first; `least` ignores
 * nulls, so an ACTIVE PERMANENT onramp has no expiry. `merchantColumns`: columns about the
 * onramp's merchant over `"o0"."merchant_id"`, a fragment of the merchants module (its allowed
 * browser origins), so authentication stays one statement.
 */
export function clientSecretSql(merchantColumns: string): string {
  return (
    'select "o0"."id", "o0"."merchant_id", "o0"."client_secret_revoked_at", ' +
    'least("o0"."closed_at", "o0"."expires_at") as "closed_at"' +
    (merchantColumns ? `, ${merchantColumns}` : '') +
    ' from "onramps" as "o0" where "o0"."client_secret_hash" = ? limit 1'
  );
}

/** Of these client-secret hashes, the ones whose secret has not been revoked. */
export async function liveClientSecrets(em: EntityManager, hashes: string[]): Promise<Set<string>> {
  const rows = await em.getConnection().execute<Array<{ client_secret_hash: string }>>(
    `select client_secret_hash from onramps
        where client_secret_hash = any(${TEXT_ARRAY}) and client_secret_revoked_at is null`,
    [textArray(hashes)],
  );
  return new Set(rows.map((r) => r.client_secret_hash));
}
