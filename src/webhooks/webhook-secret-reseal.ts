import type { EntityManager } from '@mikro-orm/postgresql';
import type { SecretBox } from '../crypto/secret-box';
import type { WebhookEndpointService } from './webhook-endpoint.service';

const BATCH = 500;

/**
 * Seals every webhook endpoint secret (current and previous) not yet under the current key:
 * values of an older key, and plaintexts stored before encryption at rest (the one path that
 * accepts them: nothing else uses an unsealed value). Walks the table in batches by endpoint
 * id (every endpoint of every merchant); each row is rewritten by the endpoint service's own
 * `resealRow`, which changes it only if it still holds what was read. Returns the rows
 * rewritten.
 */
export async function resealWebhookSecrets(
  em: EntityManager,
  box: SecretBox,
  endpoints: WebhookEndpointService,
): Promise<number> {
  const notCurrent = `enc:v1:${box.currentKeyId}:%`;
  let resealed = 0;
  let after = '';
  for (;;) {
    const rows = await em.getConnection().execute<{ id: string }[]>(
      `select id from webhook_endpoints
        where id > ? and (secret not like ? or previous_secret not like ?)
        order by id limit ?`,
      [after, notCurrent, notCurrent, BATCH],
    );
    for (const row of rows) {
      if (await endpoints.resealRow(em, row.id, { legacyPlaintext: true })) resealed++;
    }
    if (rows.length < BATCH) return resealed;
    after = rows[rows.length - 1].id;
  }
}
