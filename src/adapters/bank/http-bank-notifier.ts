import type { Clock } from '../../clock';
import type { ReturnNotification } from './bank-adapter';
import {
  BANK_SIGNATURE_HEADER,
  BANK_TIMESTAMP_HEADER,
  signBankNotification,
} from './hmac-bank-adapter';
import type { ReturnNotifier } from './bank-adapter';

const TIMEOUT_MS = 10_000;

/** A return notification in the documented HMAC v1 format (docs/bank-notifications.md). */
export function returnNotificationBody(event: ReturnNotification): string {
  const data =
    event.type === 'transfer.return_completed'
      ? {
          reference: event.reference,
          ...(event.completedAt ? { completed_at: event.completedAt.toISOString() } : {}),
        }
      : { reference: event.reference, reason: event.reason };
  return JSON.stringify({ event: event.type, data });
}

/**
 * The sandbox bank's notifications as a real bank sends them: a signed HTTP POST to the
 * gateway's `/v1/bank/notifications`. Anything but 2xx throws; the sweep's next call to the
 * bank then learns the outcome instead.
 */
export function httpBankNotifier(options: {
  gatewayUrl: string;
  secret: string;
  clock: Clock;
}): ReturnNotifier {
  const url = new URL('/v1/bank/notifications', options.gatewayUrl).toString();
  return async (event) => {
    const body = returnNotificationBody(event);
    const timestamp = Math.floor(options.clock.now().getTime() / 1000);
    const response = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        [BANK_TIMESTAMP_HEADER]: String(timestamp),
        [BANK_SIGNATURE_HEADER]: `v1=${signBankNotification(options.secret, timestamp, body)}`,
      },
      body,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    });
    if (!response.ok) {
      throw new Error(`bank notification answered ${response.status}: ${await response.text()}`);
    }
  };
}
