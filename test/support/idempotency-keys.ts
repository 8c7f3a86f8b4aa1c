import type { MikroORM } from '@mikro-orm/postgresql';

/**
 * Moves an Idempotency-Key `ms` into the past. Its 24 h and its lease are measured by the
 * database's clock, so this is how a test moves time for it (without sleeping).
 */
export async function ageIdempotencyKey(
  orm: MikroORM,
  merchantId: string,
  key: string,
  ms: number,
): Promise<void> {
  await orm.em
    .fork()
    .getConnection()
    .execute(
      `update idempotency_keys
          set created_at = created_at - ? * interval '1 millisecond',
              expires_at = expires_at - ? * interval '1 millisecond',
              lease_renewed_at = lease_renewed_at - ? * interval '1 millisecond'
        where merchant_id = ? and key = ?`,
      [ms, ms, ms, merchantId, key],
    );
}
