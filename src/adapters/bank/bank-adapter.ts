import { DomainError, ErrorCode } from '../../domain/errors';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { InboundTransfer } from '../../domain/inbound-transfer';

/**
 * The bank's outcome of one of our outbound returns to a payer. `reference` is the idempotency
 * reference we sent with it (the `deposit_returns` attempt id).
 */
export type ReturnNotification =
  | { type: 'transfer.return_completed'; reference: string; completedAt?: Date }
  | { type: 'transfer.return_failed'; reference: string; reason: string };

/**
 * A correctly signed notification that is not about our money (a card payment or someone
 * else's payout on the same provider account, an event type we do not act on): acknowledged
 * with 2xx and nothing changed, because a provider retries every non-2xx answer for days and
 * no retry can make it ours. `reason` is for the log.
 */
export interface IgnoredNotification {
  type: 'ignored';
  reason: string;
}

/** What a bank provider tells us, in our own vocabulary. */
export type BankEvent =
  | { type: 'transfer.received'; transfer: InboundTransfer }
  | { type: 'transfer.reversed'; bankReference: string; reversedAt?: Date }
  | ReturnNotification
  | IgnoredNotification;

/** Request headers as Node hands them over (names in lower case). */
export type BankNotificationHeaders = Record<string, string | string[] | undefined>;

/**
 * The bank provider behind an interface: turns one notification (the exact bytes received and
 * the request headers) into a `BankEvent`, after checking that the provider sent it.
 *
 * - Authenticity first: a missing, wrong or stale signature throws `BankSignatureError`
 *   (401 `unauthorized`) before the body is looked at.
 * - A signed body that does not follow the provider's format throws `BankPayloadError`
 *   (400 `invalid_parameter` or `missing_parameter`).
 * - Pure: no I/O, time from an injected Clock. Recording the event is the caller's job.
 *
 * Another provider plugs in by implementing this interface (see docs/bank-notifications.md).
 */
export interface BankNotificationAdapter {
  readonly name: string;
  parse(rawBody: Buffer | string, headers: BankNotificationHeaders): BankEvent;
}

/** The notification is not provably from the bank: 401 `unauthorized`. */
export class BankSignatureError extends DomainError {
  constructor(message: string) {
    super(ErrorCode.Unauthorized, message);
    this.name = 'BankSignatureError';
  }
}

/** The notification is signed but does not follow the format: 400. */
export class BankPayloadError extends DomainError {
  constructor(
    code: ErrorCode.InvalidParameter | ErrorCode.MissingParameter,
    message: string,
    details?: string,
  ) {
    super(code, message, details);
    this.name = 'BankPayloadError';
  }

  static missing(name: string): BankPayloadError {
    return new BankPayloadError(ErrorCode.MissingParameter, `Missing required parameter: ${name}`);
  }

  static invalid(name: string, why: string): BankPayloadError {
    return new BankPayloadError(ErrorCode.InvalidParameter, `Invalid parameter ${name}: ${why}`);
  }
}

/** The first value of a header (Node joins most repeated headers; some arrive as arrays). */
export function headerValue(headers: BankNotificationHeaders, name: string): string | undefined {
  const value = headers[name.toLowerCase()];
  return Array.isArray(value) ? value[0] : value;
}

/** Delivers a return's outcome notification (over HTTP, or in-process in the sandbox). */
export type ReturnNotifier = (event: ReturnNotification, em: EntityManager) => Promise<void>;
