import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../crypto/secret-box';
import { sealContext } from './idempotency.service';

const BATCH = 500;

/**
 * Seals every stored idempotent response not yet under the current key: values of an older
 * key, and responses kept as plain jsonb from before encryption at rest. A row is rewritten
 * only if it still holds what was read (safe beside live traffic). Returns the rows rewritten.
 */
export async function resealIdempotentResponses(
  em: EntityManager,
  box: SecretBox,
): Promise<number> {
  const connection = em.getConnection();
  const notCurrent = `enc:v1:${box.currentKeyId}:%`;
  let resealed = 0;
  let cursor = { merchant: '', key: '' };
  for (;;) {
    const rows = await connection.execute<
      { merchant_id: string; key: string; response_sealed: string | null; body: string | null }[]
    >(
      `select merchant_id, key, response_sealed, response_body::text as body
         from idempotency_keys
        where (merchant_id, key) > (?, ?)
          and (response_sealed not like ? or (response_sealed is null and response_body is not null))
        order by merchant_id, key limit ?`,
      [cursor.merchant, cursor.key, notCurrent, BATCH],
    );
    for (const row of rows) {
      const context = sealContext(row.merchant_id, row.key);
      const sealed =
        row.response_sealed !== null
          ? box.reseal(row.response_sealed, context)
          : box.seal(JSON.stringify(JSON.parse(row.body!)), context);
      const updated = await connection.execute<{ key: string }[]>(
        `update idempotency_keys set response_sealed = ?, response_body = null
          where merchant_id = ? and key = ? and response_sealed is not distinct from ?
          returning key`,
        [sealed, row.merchant_id, row.key, row.response_sealed],
      );
      resealed += updated.length;
    }
    if (rows.length < BATCH) return resealed;
    const last = rows[rows.length - 1];
    cursor = { merchant: last.merchant_id, key: last.key };
  }
}
