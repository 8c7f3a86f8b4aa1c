import { createHmac, timingSafeEqual } from 'node:crypto';
import {
  BankPayloadError,
  BankSignatureError,
  headerValue,
  type BankEvent,
  type BankNotificationAdapter,
  type BankNotificationHeaders,
} from '../bank-adapter';
import { dedicatedChargeTransfer, isDedicatedNuban } from './paystack-charge';
import { isObject, isoDate, stringField, type Json } from './paystack-json';
import { fromPaystackReference } from './paystack-return-reference';

export const PAYSTACK_SIGNATURE_HEADER = 'x-paystack-signature';

/** SHA-512 is 64 bytes: 128 hex characters. */
const SIGNATURE = /^[0-9a-fA-F]{128}$/;

/** `hex(HMAC-SHA512(secret key, raw body))`, as Paystack signs (PS-SNIP webhooks/verifying-transaction.js). */
export function paystackSignature(secretKey: string, rawBody: Buffer | string): string {
  return createHmac('sha512', secretKey)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/**
 * Paystack's notifications (webhooks): `x-paystack-signature` is the hex HMAC-SHA512 of the
 * request body keyed with the integration's secret key. We hash the exact bytes received, not
 * a re-serialised body as Paystack's Node sample does (a re-serialisation need not give the
 * same bytes, and a body that only verifies after one is not the body that was signed).
 *
 * - `charge.success` on channel `dedicated_nuban` → `transfer.received`;
 * - `transfer.success` → `transfer.return_completed`, `transfer.failed` / `transfer.reversed`
 *   → `transfer.return_failed`, for a reference of one of our returns (`ret_...`);
 * - anything else correctly signed (a card payment, another event type, someone else's
 *   transfer) → `ignored`: Paystack retries every non-2xx answer, and no retry makes it ours.
 */
export class PaystackNotificationAdapter implements BankNotificationAdapter {
  readonly name = 'paystack';
  private readonly secretKey: string;

  constructor(secretKey: string) {
    if (secretKey.length === 0) throw new Error('PaystackNotificationAdapter needs the secret key');
    this.secretKey = secretKey;
  }

  parse(rawBody: Buffer | string, headers: BankNotificationHeaders): BankEvent {
    const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
    this.verify(body, headers);
    return decode(body);
  }

  private verify(body: Buffer, headers: BankNotificationHeaders): void {
    const signature = headerValue(headers, PAYSTACK_SIGNATURE_HEADER)?.trim();
    if (!signature) throw new BankSignatureError(`Missing ${PAYSTACK_SIGNATURE_HEADER} header`);
    // The length is checked first: timingSafeEqual needs equal lengths (64 bytes here).
    if (!SIGNATURE.test(signature)) {
      throw new BankSignatureError(`${PAYSTACK_SIGNATURE_HEADER} must be 128 hex characters`);
    }
    const expected = Buffer.from(paystackSignature(this.secretKey, body), 'hex');
    if (!timingSafeEqual(expected, Buffer.from(signature, 'hex'))) {
      throw new BankSignatureError('Signature does not match');
    }
  }
}

function decode(body: Buffer): BankEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch {
    throw BankPayloadError.invalid('body', 'is not valid JSON');
  }
  if (!isObject(parsed)) throw BankPayloadError.invalid('body', 'must be a JSON object');
  const event = parsed.event;
  if (event === undefined || event === null || event === '')
    throw BankPayloadError.missing('event');
  if (typeof event !== 'string') throw BankPayloadError.invalid('event', 'must be a string');
  const data = parsed.data;
  if (data === undefined || data === null) throw BankPayloadError.missing('data');

  if (event === 'charge.success') {
    if (!isObject(data)) throw BankPayloadError.invalid('data', 'must be a JSON object');
    if (!isDedicatedNuban(data)) {
      return { type: 'ignored', reason: `charge.success on channel ${String(data.channel)}` };
    }
    return { type: 'transfer.received', transfer: dedicatedChargeTransfer(data) };
  }
  if (
    event === 'transfer.success' ||
    event === 'transfer.failed' ||
    event === 'transfer.reversed'
  ) {
    if (!isObject(data)) throw BankPayloadError.invalid('data', 'must be a JSON object');
    return transferOutcome(event, data);
  }
  return { type: 'ignored', reason: `Paystack event ${event.slice(0, 64)} is not one we act on` };
}

/** The outcome of one of our returns (a Paystack transfer whose reference is ours). */
function transferOutcome(
  event: 'transfer.success' | 'transfer.failed' | 'transfer.reversed',
  data: Json,
): BankEvent {
  const paystackReference = stringField(data, 'reference');
  if (paystackReference === null) throw BankPayloadError.missing('data.reference');
  if (paystackReference === undefined) {
    throw BankPayloadError.invalid('data.reference', 'must be a string');
  }
  const reference = fromPaystackReference(paystackReference);
  if (reference === null) {
    return { type: 'ignored', reason: `${event} for a transfer that is not one of our returns` };
  }
  if (event === 'transfer.success') {
    const at = stringField(data, 'transferred_at');
    const completedAt = typeof at === 'string' ? isoDate(at) : undefined;
    return {
      type: 'transfer.return_completed',
      reference,
      ...(completedAt ? { completedAt } : {}),
    };
  }
  // `data.reason` is the narration we sent, not why it failed; `gateway_response` may say why.
  const why = stringField(data, 'gateway_response');
  const detail = typeof why === 'string' ? `: ${why.slice(0, 200)}` : '';
  return {
    type: 'transfer.return_failed',
    reference,
    reason:
      event === 'transfer.reversed'
        ? `Paystack reversed the transfer (the payer's bank could not take it)${detail}`
        : `Paystack could not send the transfer${detail}`,
  };
}
