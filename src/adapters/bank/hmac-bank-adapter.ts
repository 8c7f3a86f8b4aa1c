import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../../clock';
import { dec, isDecimalString } from '../../domain/money';
import {
  BankPayloadError,
  BankSignatureError,
  headerValue,
  type BankEvent,
  type BankNotificationAdapter,
  type BankNotificationHeaders,
} from './bank-adapter';

export const BANK_TIMESTAMP_HEADER = 'x-bank-timestamp';
export const BANK_SIGNATURE_HEADER = 'x-bank-signature';
/** Notifications signed further than this from our clock are refused (replay window). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

const TIMESTAMP = /^[0-9]{1,12}$/;
const V1_SIGNATURE = /^v1=([0-9a-fA-F]{64})$/;
/** ISO 8601 date-time with an explicit offset: a time without one is ambiguous. */
const ISO_DATE_TIME =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}(:[0-9]{2}(\.[0-9]{1,9})?)?(Z|[+-][0-9]{2}:?[0-9]{2})$/i;
const EVENTS = [
  'transfer.received',
  'transfer.reversed',
  'transfer.return_completed',
  'transfer.return_failed',
] as const;

export interface HmacBankAdapterOptions {
  /** The shared secret, or several while the bank rotates it (any of them verifies). */
  secret: string | readonly string[];
  clock: Clock;
  toleranceSeconds?: number;
}

/** `hex(HMAC-SHA256(secret, "{timestamp}.{raw body}"))`: the value after `v1=`. */
export function signBankNotification(
  secret: string,
  timestamp: string | number,
  rawBody: Buffer | string,
): string {
  return createHmac('sha256', secret)
    .update(`${timestamp}.`)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function requiredString(data: Json, field: string): string {
  const value = data[field];
  if (value === undefined || value === null || value === '') {
    throw BankPayloadError.missing(`data.${field}`);
  }
  if (typeof value !== 'string')
    throw BankPayloadError.invalid(`data.${field}`, 'must be a string');
  return value;
}

function optionalString(data: Json, field: string): string | null {
  const value = data[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string')
    throw BankPayloadError.invalid(`data.${field}`, 'must be a string');
  return value;
}

const TEN_DIGITS = /^[0-9]{10}$/;

/**
 * An account number of the notification (the credited virtual account, the payer's): a
 * 10-digit NUBAN or the notification is refused, so nothing else reaches the deposit, its
 * last 4 digits shown to the merchant, a return or a report. An optional one left out (absent,
 * null or "") means the bank does not know it.
 */
function accountNumber(value: string | null, field: string): string | null {
  if (value === null || value === '') return null;
  if (!TEN_DIGITS.test(value)) {
    throw BankPayloadError.invalid(`data.${field}`, 'must be a 10-digit account number (NUBAN)');
  }
  return value;
}

function optionalDateTime(data: Json, field: string): Date | undefined {
  const value = optionalString(data, field);
  if (value === null) return undefined;
  const at = new Date(value);
  if (!ISO_DATE_TIME.test(value) || Number.isNaN(at.getTime())) {
    throw BankPayloadError.invalid(
      `data.${field}`,
      'must be an ISO 8601 date-time with an offset, such as 2026-01-31T12:00:00Z',
    );
  }
  return at;
}

/**
 * Our documented generic bank format (docs/bank-notifications.md):
 * `x-bank-timestamp: <Unix seconds>` and `x-bank-signature: v1=<hex HMAC-SHA256>` over
 * `"{timestamp}.{raw body}"`, several comma-separated `v1=` values allowed while the bank
 * rotates its secret; a JSON body `{"event", "data"}`.
 */
export class HmacBankAdapter implements BankNotificationAdapter {
  readonly name = 'hmac-v1';
  private readonly secrets: readonly string[];
  private readonly toleranceMs: number;

  constructor(private readonly options: HmacBankAdapterOptions) {
    this.secrets = (typeof options.secret === 'string' ? [options.secret] : options.secret).filter(
      (s) => s.length > 0,
    );
    if (this.secrets.length === 0) throw new Error('HmacBankAdapter needs a secret');
    this.toleranceMs = (options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS) * 1000;
  }

  parse(rawBody: Buffer | string, headers: BankNotificationHeaders): BankEvent {
    const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
    this.verify(body, headers);
    return this.decode(body);
  }

  /** Throws `BankSignatureError` unless one `v1=` value is ours for a fresh timestamp. */
  private verify(body: Buffer, headers: BankNotificationHeaders): void {
    const timestamp = headerValue(headers, BANK_TIMESTAMP_HEADER)?.trim();
    const signature = headerValue(headers, BANK_SIGNATURE_HEADER);
    if (!timestamp || !signature) {
      throw new BankSignatureError(
        `Missing ${BANK_TIMESTAMP_HEADER} or ${BANK_SIGNATURE_HEADER} header`,
      );
    }
    if (!TIMESTAMP.test(timestamp)) {
      throw new BankSignatureError(`${BANK_TIMESTAMP_HEADER} must be Unix seconds`);
    }
    const skewMs = Math.abs(this.options.clock.now().getTime() - Number(timestamp) * 1000);
    if (skewMs > this.toleranceMs) {
      throw new BankSignatureError(
        `${BANK_TIMESTAMP_HEADER} is more than ${this.toleranceMs / 1000} seconds from our clock`,
      );
    }
    const candidates = signature
      .split(',')
      .map((part) => V1_SIGNATURE.exec(part.trim())?.[1])
      .filter((hex): hex is string => hex !== undefined)
      .map((hex) => Buffer.from(hex, 'hex'));
    if (candidates.length === 0) {
      throw new BankSignatureError(`${BANK_SIGNATURE_HEADER} has no v1= signature`);
    }
    const expected = this.secrets.map((secret) =>
      Buffer.from(signBankNotification(secret, timestamp, body), 'hex'),
    );
    // Every candidate is 32 bytes (the pattern above), as timingSafeEqual requires.
    const valid = candidates.some((candidate) =>
      expected.some((mine) => timingSafeEqual(mine, candidate)),
    );
    if (!valid) throw new BankSignatureError('Signature does not match');
  }

  private decode(body: Buffer): BankEvent {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body.toString('utf8'));
    } catch {
      throw BankPayloadError.invalid('body', 'is not valid JSON');
    }
    if (!isObject(parsed)) throw BankPayloadError.invalid('body', 'must be a JSON object');
    const event = parsed.event;
    if (event === undefined || event === null || event === '') {
      throw BankPayloadError.missing('event');
    }
    if (typeof event !== 'string' || !(EVENTS as readonly string[]).includes(event)) {
      throw BankPayloadError.invalid('event', `must be one of ${EVENTS.join(', ')}`);
    }
    const data = parsed.data;
    if (data === undefined || data === null) throw BankPayloadError.missing('data');
    if (!isObject(data)) throw BankPayloadError.invalid('data', 'must be a JSON object');

    if (event === 'transfer.return_completed') {
      const completedAt = optionalDateTime(data, 'completed_at');
      return {
        type: 'transfer.return_completed',
        reference: requiredString(data, 'reference'),
        ...(completedAt ? { completedAt } : {}),
      };
    }
    if (event === 'transfer.return_failed') {
      return {
        type: 'transfer.return_failed',
        reference: requiredString(data, 'reference'),
        reason: requiredString(data, 'reason'),
      };
    }
    if (event === 'transfer.reversed') {
      const reversedAt = optionalDateTime(data, 'reversed_at');
      return {
        type: 'transfer.reversed',
        bankReference: requiredString(data, 'reference'),
        ...(reversedAt ? { reversedAt } : {}),
      };
    }

    const credited = accountNumber(requiredString(data, 'account_number'), 'account_number')!;
    // Read now: a bad payer account refuses the notification before anything else is said.
    const senderAccount = accountNumber(
      optionalString(data, 'sender_account_number'),
      'sender_account_number',
    );
    const amount = data.amount;
    if (amount === undefined || amount === null || amount === '') {
      throw BankPayloadError.missing('data.amount');
    }
    if (typeof amount !== 'string' || !isDecimalString(amount, 2) || dec(amount).lte(0)) {
      throw BankPayloadError.invalid(
        'data.amount',
        'must be a positive decimal string with at most 2 places, such as "5000.00"',
      );
    }
    const currency = requiredString(data, 'currency');
    if (currency !== 'NGN') throw BankPayloadError.invalid('data.currency', 'must be NGN');
    const bankReference = requiredString(data, 'reference');
    const transferredAt = optionalDateTime(data, 'transferred_at');
    return {
      type: 'transfer.received',
      transfer: {
        accountNumber: credited,
        amountNgn: amount,
        bankReference,
        senderName: optionalString(data, 'sender_name'),
        senderAccount,
        senderBank: optionalString(data, 'sender_bank'),
        ...(transferredAt ? { transferredAt } : {}),
      },
    };
  }
}
