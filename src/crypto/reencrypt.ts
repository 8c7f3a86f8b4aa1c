import type { EntityManager } from '@mikro-orm/postgresql';
import type { WebhookEndpointService } from '../webhooks';
import { sealContext } from '../system';
import type { SecretBox } from './secret-box';

export interface ReencryptReport {
  /** The key every value is sealed under now. */
  key_id: string;
  webhook_endpoints: number;
  idempotency_responses: number;
}

const BATCH = 500;

/**
 * Seals everything stored at rest under the current ENCRYPTION_KEY: values of the keys in
 * ENCRYPTION_KEY_PREVIOUS, and plaintexts stored before encryption at rest (webhook secrets,
 * idempotent responses kept as jsonb). Safe to run while the service runs (each row is
 * rewritten only if it still holds what was read) and to run again. A value no configured key
 * opens stops the run with an error naming the key it needs: nothing is silently skipped.
 */
export async function reencryptAll(
  em: EntityManager,
  box: SecretBox,
  webhookEndpoints: WebhookEndpointService,
): Promise<ReencryptReport> {
  const connection = em.getConnection();
  const notCurrent = `enc:v1:${box.currentKeyId}:%`;
  let endpoints = 0;
  let after = '';
  for (;;) {
    const rows = await connection.execute<{ merchant_id: string }[]>(
      `select merchant_id from webhook_endpoints
        where merchant_id > ? and (secret not like ? or previous_secret not like ?)
        order by merchant_id limit ?`,
      [after, notCurrent, notCurrent, BATCH],
    );
    for (const row of rows) {
      if (await webhookEndpoints.resealRow(em, row.merchant_id)) endpoints++;
    }
    if (rows.length < BATCH) break;
    after = rows[rows.length - 1].merchant_id;
  }

  let responses = 0;
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
      responses += updated.length;
    }
    if (rows.length < BATCH) break;
    const last = rows[rows.length - 1];
    cursor = { merchant: last.merchant_id, key: last.key };
  }
  return {
    key_id: box.currentKeyId,
    webhook_endpoints: endpoints,
    idempotency_responses: responses,
  };
}
