import type { ApiScope } from '../../domain/api-scopes';

/**
 * The scopes that let a restricted key reach each root field (any one of them; `all` always
 * does). A root field not listed here needs `all`: new fields are closed to restricted keys
 * until listed, as they are to client secrets.
 */
export const ROOT_FIELD_SCOPES: Readonly<Record<string, readonly ApiScope[]>> = {
  'Query.rate': ['rates:read'],
  'Query.onramp': ['onramps:read'],
  'Query.onramps': ['onramps:read'],
  'Query.deposit': ['deposits:read'],
  'Query.deposits': ['deposits:read'],
  'Query.settledVolume': ['deposits:read'],
  'Query.merchant': ['balance:read'],
  'Query.withdrawal': ['balance:read', 'withdrawals:write'],
  'Query.withdrawals': ['balance:read', 'withdrawals:write'],
  'Query.webhookDeliveries': ['webhooks:write'],
  'Query.webhookEndpoints': ['webhooks:write'],
  'Query.withdrawalAddresses': ['withdrawals:write', 'balance:read'],
  'Mutation.createOnramp': ['onramps:write'],
  'Mutation.deactivateOnramp': ['onramps:write'],
  'Mutation.revokeClientSecret': ['onramps:write'],
  'Mutation.withdraw': ['withdrawals:write'],
  'Mutation.addWithdrawalAddress': ['withdrawals:write'],
  'Mutation.removeWithdrawalAddress': ['withdrawals:write'],
  'Mutation.setWebhookEndpoint': ['webhooks:write'],
  'Mutation.rotateWebhookSecret': ['webhooks:write'],
  'Mutation.replayWebhookEvent': ['webhooks:write'],
  'Mutation.createWebhookEndpoint': ['webhooks:write'],
  'Mutation.updateWebhookEndpoint': ['webhooks:write'],
  'Mutation.deleteWebhookEndpoint': ['webhooks:write'],
  'Mutation.rotateWebhookEndpointSecret': ['webhooks:write'],
  'Mutation.testWebhookEndpoint': ['webhooks:write'],
  'Mutation.simulateDeposit': ['sandbox:write'],
  'Mutation.simulateReversal': ['sandbox:write'],
  'Mutation.setSandboxScenario': ['sandbox:write'],
  'Subscription.depositUpdated': ['deposits:read'],
};
