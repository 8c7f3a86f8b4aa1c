// Names the service defines and the dashboard offers as choices. No imports: the unit test
// `dashboard-vocabulary.test.ts` checks them against the service's own lists
// (src/domain/webhook-events.ts, src/domain/api-scopes.ts), so the two cannot drift.

/** The events a webhook endpoint can choose, `*` being all of them. */
export const EVENT_NAMES = [
  'deposit.created',
  'deposit.pending_withdrawal',
  'deposit.settled',
  'deposit.failed',
  'deposit.flagged',
  'deposit.reversed',
  'deposit.returning',
  'deposit.returned',
  'deposit.return_failed',
  'withdrawal.completed',
  'withdrawal.failed',
  'withdrawal_address.created',
  'withdrawal_address.activated',
  'withdrawal_address.deleted',
  'merchant.settings_updated',
  'api_key.created',
  'api_key.revoked',
  'balance.reserve_released',
];

/** The restricted scopes, as the API names them (`all` is its own choice). */
export const SCOPES = [
  'rates:read',
  'onramps:read',
  'onramps:write',
  'deposits:read',
  'balance:read',
  'withdrawals:write',
  'webhooks:write',
  'sandbox:write',
];
