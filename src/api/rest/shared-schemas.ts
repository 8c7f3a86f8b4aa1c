import type { FastifyInstance } from 'fastify';
import { ErrorResponse, HealthResponse, RateResponse } from './schemas';
import { CreatedOnrampResponse, OnrampResponse, Pagination } from './onramp.schemas';
import { BalanceResponse, DepositResponse } from './deposit.schemas';
import { WithdrawalResponse } from './withdrawal.schemas';
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
  BalanceResponse,
  Pagination,
  HealthResponse,
  ApiKeyResponse,
  CreatedApiKeyResponse,
] as const;

/** Adds the shared schemas to an instance, before any route that refers to them. */
export function addSharedSchemas(app: FastifyInstance): void {
  for (const schema of SHARED_SCHEMAS) app.addSchema(schema);
}
