import type { EntityManager } from '@mikro-orm/postgresql';
import { resealOnrampCustomers } from '../onramps';
import { resealIdempotentResponses } from '../system';
import { resealWebhookSecrets, type WebhookEndpointService } from '../webhooks';
import type { SecretBox } from '../crypto/secret-box';

export interface ReencryptReport {
  /** The key every value is sealed under now. */
  key_id: string;
  webhook_endpoints: number;
  idempotency_responses: number;
  onramp_customers: number;
}

/**
 * Seals everything stored at rest under the current ENCRYPTION_KEY: values of the keys in
 * ENCRYPTION_KEY_PREVIOUS, and plaintexts stored before encryption at rest (webhook secrets,
 * idempotent responses kept as jsonb) and onramps' customer records. Each module reseals its own table. Safe to run while
 * the service runs (each row is rewritten only if it still holds what was read) and to run
 * again. A value no configured key opens stops the run with an error naming the key it needs:
 * nothing is silently skipped.
 */
export async function reencryptAll(
  em: EntityManager,
  box: SecretBox,
  webhookEndpoints: WebhookEndpointService,
): Promise<ReencryptReport> {
  const endpoints = await resealWebhookSecrets(em, box, webhookEndpoints);
  const responses = await resealIdempotentResponses(em, box);
  const customers = await resealOnrampCustomers(em, box);
  return {
    key_id: box.currentKeyId,
    webhook_endpoints: endpoints,
    idempotency_responses: responses,
    onramp_customers: customers,
  };
}
