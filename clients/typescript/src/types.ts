import type { paths } from './schema';

/**
 * The REST objects, read from the operations that return them rather than from component
 * names, so they stay right whatever the OpenAPI document calls its components.
 */
type JsonOf<R> = R extends { content: { 'application/json': infer Body } } ? Body : never;

export type Deposit = JsonOf<paths['/v1/deposits/{id}']['get']['responses'][200]>;
export type DepositStatus = Deposit['status'];
export type Withdrawal = JsonOf<paths['/v1/merchant/withdrawals/{id}']['get']['responses'][200]>;
export type Onramp = JsonOf<paths['/v1/onramp/{id}']['get']['responses'][200]>;
export type CreatedOnramp = JsonOf<paths['/v1/onramp']['post']['responses'][201]>;
export type Rate = JsonOf<paths['/v1/rates']['get']['responses'][200]>;
export type Balance = JsonOf<paths['/v1/merchant/balance']['get']['responses'][200]>;
export type WithdrawalAddress = JsonOf<
  paths['/v1/merchant/withdrawal_addresses']['post']['responses'][201]
>;
export type MerchantSettings = JsonOf<paths['/v1/merchant/settings']['get']['responses'][200]>;
export type ApiKey = JsonOf<paths['/v1/api_keys/{id}']['delete']['responses'][200]>;
export type WebhookEndpointObject = JsonOf<
  paths['/v1/webhook_endpoints/{id}']['get']['responses'][200]
>;

/** Every error the API answers: `{"error": {"code", "message", "details"?}}`. */
export type ApiErrorBody = JsonOf<paths['/v1/onramp']['post']['responses'][400]>;
export type ApiErrorCode = ApiErrorBody['error']['code'];
