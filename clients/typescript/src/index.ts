/**
 * The NGN onramp API's typed client: REST calls typed from the OpenAPI document
 * (openapi-fetch over the types openapi-typescript generates into schema.d.ts), the webhook
 * endpoint's one GraphQL call, and the Standard Webhooks signature check.
 */
export { createOnrampClient } from './client';
export type { IdempotencyOption, OnrampClient, OnrampClientOptions } from './client';
export type { RetryOptions } from './retry';
export { OnrampApiError, isApiErrorBody, unwrap } from './errors';
export type { ApiResult } from './errors';
export { setWebhookEndpoint } from './webhook-endpoint';
export type { WebhookEndpoint } from './webhook-endpoint';
export { verifyWebhook, WebhookVerificationError } from './webhooks';
export type {
  ApiKeyEventKind,
  DepositEventKind,
  WebhookEvent,
  WebhookHeaders,
  WithdrawalAddressEventKind,
  WithdrawalEventKind,
} from './webhooks';
export type * from './types';
export type { paths } from './schema';
