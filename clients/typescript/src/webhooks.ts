import { Webhook, WebhookVerificationError } from 'standardwebhooks';
import type { ApiKey, Deposit, MerchantSettings, Withdrawal, WithdrawalAddress } from './types';

export { WebhookVerificationError };

export type DepositEventKind =
  | 'deposit.created'
  | 'deposit.pending_withdrawal'
  | 'deposit.settled'
  | 'deposit.failed'
  | 'deposit.flagged'
  | 'deposit.reversed'
  | 'deposit.returning'
  | 'deposit.returned'
  | 'deposit.return_failed';
export type WithdrawalEventKind = 'withdrawal.completed' | 'withdrawal.failed';
export type WithdrawalAddressEventKind =
  'withdrawal_address.created' | 'withdrawal_address.activated' | 'withdrawal_address.deleted';
export type ApiKeyEventKind = 'api_key.created' | 'api_key.revoked';

interface Envelope<Kind extends string, Data> {
  event: Kind;
  /** Also the `webhook-id` header: the same on every retry and replay, so deduplicate by it. */
  event_id: string;
  created_at: string;
  /** The REST object as it was when the event happened. */
  data: Data;
}

/** A verified webhook body: narrow on `event` to get a `Deposit` or a `Withdrawal`. */
export type WebhookEvent =
  | Envelope<DepositEventKind, Deposit>
  | Envelope<WithdrawalEventKind, Withdrawal>
  | Envelope<WithdrawalAddressEventKind, WithdrawalAddress>
  | Envelope<'merchant.settings_updated', MerchantSettings>
  | Envelope<ApiKeyEventKind, ApiKey>
  /** Sent by an endpoint's test call, to that endpoint only. */
  | Envelope<'test.ping', { endpoint_id: string; message: string }>;

/** Request headers as Node (`req.headers`), fetch (`Headers`) or a plain object give them. */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

const SIGNED_HEADERS = ['webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;

function headerValue(headers: WebhookHeaders, name: string): string {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? '';
  const entry = Object.entries(headers).find(([key]) => key.toLowerCase() === name);
  const value = entry?.[1];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}

/**
 * Verifies a webhook with the endpoint's `whsec_...` secret (Standard Webhooks: HMAC-SHA256 of
 * `id.timestamp.body`, a timestamp within five minutes) and returns the parsed event. Pass the
 * body exactly as received (the raw string or Buffer, not re-serialised JSON). Throws
 * `WebhookVerificationError` when the signature, the timestamp or a header is wrong.
 */
export function verifyWebhook(
  payload: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
): WebhookEvent {
  const signed = Object.fromEntries(
    SIGNED_HEADERS.map((name) => [name, headerValue(headers, name)]),
  );
  return new Webhook(secret).verify(payload, signed) as WebhookEvent;
}
