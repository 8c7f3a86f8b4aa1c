import type { FastifyInstance } from 'fastify';
import { ErrorResponse, HealthResponse, RateResponse } from './schemas';
import { CreatedOnrampResponse, OnrampResponse, Pagination } from './onramp.schemas';
import { BalanceResponse, DepositResponse } from './deposit.schemas';
import { WithdrawalResponse } from './withdrawal.schemas';
import {
  DeletedWebhookEndpointResponse,
  WebhookDeliveryResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
} from './webhook-endpoint.schemas';
import { MerchantSettingsResponse, WithdrawalAddressResponse } from './withdrawal-address.schemas';
import { ApiKeyResponse, CreatedApiKeyResponse } from './api-key.schemas';

/**
 * The schemas routes share by reference (`refTo`): each is named by its `$id` in the OpenAPI
 * document's components, so clients generated from it get one type per resource.
 */
export const SHARED_SCHEMAS = [
  ErrorResponse,
  RateResponse,
  OnrampResponse,
  CreatedOnrampResponse,
  DepositResponse,
  WithdrawalResponse,
  WithdrawalAddressResponse,
  MerchantSettingsResponse,
  BalanceResponse,
  Pagination,
  HealthResponse,
  WebhookEndpointResponse,
  WebhookEndpointWithSecretResponse,
  DeletedWebhookEndpointResponse,
  WebhookDeliveryResponse,
  ApiKeyResponse,
  CreatedApiKeyResponse,
] as const;

/** Adds the shared schemas to an instance, before any route that refers to them. */
export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
}
