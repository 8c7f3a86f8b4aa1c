import { EVENT_ON_ENTRY, type DepositStatus } from '../../domain/deposit-state-machine';
import { API_KEY, DEPOSIT, WITHDRAWAL } from './examples';
import { MERCHANT_SETTINGS, WITHDRAWAL_ADDRESS } from './address-book-examples';

/**
 * The withdrawal events: written by the `withdrawals_status_event` trigger (payouts
 * migration), which has no TypeScript counterpart; a unit test reads the migration to keep
 * this list equal to the trigger's.
 */
export const WITHDRAWAL_EVENT_ON_ENTRY = {
  COMPLETED: 'withdrawal.completed',
  FAILED: 'withdrawal.failed',
} as const;

const WEBHOOK_PARAMETERS = {
  WebhookId: {
    name: 'webhook-id',
    in: 'header',
    required: true,
    description: 'The event id (`event_id`): the same on every retry; deduplicate by it.',
    schema: { type: 'string' },
    example: 'evt_3f9c2a7b1d4e4f0a9b8c7d6e5f4a3b2c',
  },
  WebhookTimestamp: {
    name: 'webhook-timestamp',
    in: 'header',
    required: true,
    description: 'Unix seconds of this attempt; refuse deliveries far from your clock.',
    schema: { type: 'string', pattern: '^[0-9]+$' },
    example: '1795600890',
  },
  WebhookSignature: {
    name: 'webhook-signature',
    in: 'header',
    required: true,
    description:
      'Standard Webhooks: space-separated `v1,<base64 HMAC-SHA256(secret, "{webhook-id}.' +
      '{webhook-timestamp}.{raw body}")>`, one per active `whsec_` secret (two while a secret ' +
      'rotates). Verify with any Standard Webhooks library, e.g. the `standardwebhooks` package.',
    schema: { type: 'string' },
    example: 'v1,K5oZfzN95Z9UVu1EsfQmfVNQhnkZ2pj9o9NDN/H/pI4=',
  },
} as const;

const envelope = (name: string, events: readonly string[], dataSchema: string) => ({
  type: 'object',
  description: `The webhook body of a ${name.toLowerCase()} event: \`data\` is the full ${dataSchema} object as it was when the event was written.`,
  required: ['event', 'event_id', 'created_at', 'data'],
  properties: {
    event: { type: 'string', enum: [...events] },
    event_id: { type: 'string', description: 'Unique per event (= webhook-id)' },
    created_at: { type: 'string', format: 'date-time' },
    data: { $ref: `#/components/schemas/${dataSchema}` },
  },
});

const DEPOSIT_EVENTS = Object.values(EVENT_ON_ENTRY);
const WITHDRAWAL_EVENTS = Object.values(WITHDRAWAL_EVENT_ON_ENTRY);

/** Written by the address book (src/payouts), each with the entry as it then was. */
const WITHDRAWAL_ADDRESS_EVENTS = {
  'withdrawal_address.created': ['PENDING', 'An address was added to the withdrawal address book'],
  'withdrawal_address.activated': ['ACTIVE', 'An address book entry became usable (ACTIVE)'],
  'withdrawal_address.deleted': ['DELETED', 'An address was removed from the address book'],
} as const;
const SETTINGS_EVENT = 'merchant.settings_updated';
/** Written by the api_keys row triggers, with the key as it then was (never its secret). */
const API_KEY_EVENTS = {
  'api_key.created': [null, 'An API key was created (by the merchant or the operator)'],
  'api_key.revoked': ['2026-11-25T10:25:00.000Z', 'An API key was revoked'],
} as const;
/** Sent by `POST /v1/webhook_endpoints/{id}/test` to that endpoint only. */
const TEST_PING_EVENT = 'test.ping';

/** The events the merchant's own controls write, for the drift test. */
export const MERCHANT_CONTROL_EVENTS = [
  ...Object.keys(WITHDRAWAL_ADDRESS_EVENTS),
  SETTINGS_EVENT,
  ...Object.keys(API_KEY_EVENTS),
  TEST_PING_EVENT,
];

export const WEBHOOK_SCHEMAS = {
  DepositEvent: envelope('Deposit', DEPOSIT_EVENTS, 'Deposit'),
  WithdrawalEvent: envelope('Withdrawal', WITHDRAWAL_EVENTS, 'Withdrawal'),
  WithdrawalAddressEvent: envelope(
    'WithdrawalAddress',
    Object.keys(WITHDRAWAL_ADDRESS_EVENTS),
    'WithdrawalAddress',
  ),
  MerchantSettingsEvent: envelope('MerchantSettings', [SETTINGS_EVENT], 'MerchantSettings'),
  ApiKeyEvent: envelope('ApiKey', Object.keys(API_KEY_EVENTS), 'ApiKey'),
  TestPing: {
    type: 'object',
    description: 'What a test event carries: the endpoint it was sent to.',
    required: ['endpoint_id', 'message'],
    properties: { endpoint_id: { type: 'string' }, message: { type: 'string' } },
  },
  TestPingEvent: envelope('TestPing', [TEST_PING_EVENT], 'TestPing'),
};

/** `deposit.pending_withdrawal` -> `depositPendingWithdrawalEvent`. */
const operationIdOf = (event: string) =>
  `${event.replace(/[._]([a-z])/g, (_m, c: string) => c.toUpperCase())}Event`;

function webhook(event: string, schema: string, summary: string, data: object) {
  return {
    post: {
      operationId: operationIdOf(event),
      summary,
      tags: ['webhooks'],
      security: [],
      parameters: Object.keys(WEBHOOK_PARAMETERS).map((name) => ({
        $ref: `#/components/parameters/${name}`,
      })),
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: { $ref: `#/components/schemas/${schema}` },
            example: {
              event,
              event_id: WEBHOOK_PARAMETERS.WebhookId.example,
              created_at: '2026-11-25T10:01:30.000Z',
              data,
            },
          },
        },
      },
      responses: {
        '2XX': { description: 'Delivered. Answer within 15 s; the body is ignored.' },
        '410': { description: 'Gone: disables the endpoint; no further deliveries.' },
        default: {
          description:
            'Anything else, or no answer within 15 s: retried with backoff and jitter, the ' +
            'first retry about 5 s later, at most 10 retries, the last about 24 h after the ' +
            'first attempt.',
        },
      },
    },
  };
}

const DEPOSIT_SUMMARIES: Record<DepositStatus, string> = {
  PENDING_FX: 'A deposit was received (PENDING_FX)',
  PENDING_WITHDRAWAL: 'A deposit was converted; its on-chain payout is under way',
  SETTLED: 'A deposit settled (on-chain, or credited to the balance)',
  FAILED: 'A deposit failed',
  FLAGGED: 'A deposit was flagged for review',
  REVERSED: 'The bank reversed a deposit: settled, or its return not yet sent',
  RETURNING: 'A flagged deposit is being sent back to the payer',
  RETURNED: "The bank confirmed a deposit's return to the payer",
  RETURN_FAILED: 'The bank refused to return a deposit; its NGN is held for the operator',
};

/** The deposit as it would be on entering a status, for the examples. */
function depositOn(status: DepositStatus) {
  const settled = status === 'SETTLED' || status === 'REVERSED';
  return {
    ...DEPOSIT,
    status,
    amount_asset: status === 'PENDING_FX' || status === 'FAILED' ? null : DEPOSIT.amount_asset,
    tx_hash: settled ? DEPOSIT.tx_hash : null,
    settled_at: settled ? DEPOSIT.settled_at : null,
    failure_reason: status === 'FAILED' ? 'FX execution failed' : null,
    flag_reason: status === 'FLAGGED' ? 'Rejected by risk review' : null,
  };
}

/** The document's `webhooks`: one entry per event the service sends. */
export function webhooksSection() {
  const deposits = Object.entries(EVENT_ON_ENTRY).map(([status, event]) => [
    event,
    webhook(
      event,
      'DepositEvent',
      DEPOSIT_SUMMARIES[status as DepositStatus],
      depositOn(status as DepositStatus),
    ),
  ]);
  const withdrawals = Object.entries(WITHDRAWAL_EVENT_ON_ENTRY).map(([status, event]) => [
    event,
    webhook(event, 'WithdrawalEvent', `A withdrawal ${status.toLowerCase()}`, {
      ...WITHDRAWAL,
      status,
      tx_hash: status === 'COMPLETED' ? DEPOSIT.tx_hash : null,
    }),
  ]);
  const addresses = Object.entries(WITHDRAWAL_ADDRESS_EVENTS).map(([event, [status, summary]]) => [
    event,
    webhook(event, 'WithdrawalAddressEvent', summary, { ...WITHDRAWAL_ADDRESS, status }),
  ]);
  const settings = [
    SETTINGS_EVENT,
    webhook(
      SETTINGS_EVENT,
      'MerchantSettingsEvent',
      "The merchant's settings changed",
      MERCHANT_SETTINGS,
    ),
  ];
  const apiKeys = Object.entries(API_KEY_EVENTS).map(([event, [revokedAt, summary]]) => [
    event,
    webhook(event, 'ApiKeyEvent', summary, { ...API_KEY, revoked_at: revokedAt }),
  ]);
  const ping = [
    TEST_PING_EVENT,
    webhook(TEST_PING_EVENT, 'TestPingEvent', 'A test event, sent to one endpoint on request', {
      endpoint_id: 'we_01JDQX9C8B7A6Z5Y4X3W2V1T0S',
      message: 'A test event sent to this endpoint only',
    }),
  ];
  return Object.fromEntries([
    ...deposits,
    ...withdrawals,
    ...addresses,
    settings,
    ...apiKeys,
    ping,
  ]);
}

export { WEBHOOK_PARAMETERS };
