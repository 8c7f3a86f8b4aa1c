/**
 * The event names a webhook endpoint can subscribe to (`enabled_events`), or `*` for all of
 * them (and those added later). `test.ping` is not among them: it is sent only by the test
 * call, to the one endpoint it names.
 */
export const WEBHOOK_EVENT_NAMES = [
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
] as const;

export const TEST_PING_EVENT = 'test.ping';

/** What an endpoint can subscribe to: the names above, or `*` alone. */
export const SUBSCRIBABLE_EVENTS: readonly string[] = ['*', ...WEBHOOK_EVENT_NAMES];

/**
 * Checks an `enabled_events` list: a non-empty list of known names (duplicates dropped), or
 * `["*"]`. Returns the error text for a bad one, or the list to store.
 */
export function parseEnabledEvents(value: unknown): { events: string[] } | { error: string } {
  if (!Array.isArray(value) || value.length === 0) {
    return { error: 'must be a non-empty list of event names, or ["*"]' };
  }
  const unknown = value.filter(
    (name) => typeof name !== 'string' || !SUBSCRIBABLE_EVENTS.includes(name),
  );
  if (unknown.length > 0) {
    return { error: `unknown event name(s): ${unknown.map((n) => JSON.stringify(n)).join(', ')}` };
  }
  const events = [...new Set(value as string[])];
  if (events.includes('*') && events.length > 1) {
    return { error: '"*" already means every event; send it alone' };
  }
  return { events };
}
