import { z } from 'zod';
import { optionalUrl } from './config-fields';

/** The sandbox bank's outbound side (returns to the payer); spread into `configSchema`. */
export const bankConfigFields = {
  /**
   * How long the sandbox bank takes to notify the outcome of a return it accepted, like a real
   * bank's "processing" before its signed notification. 0: notified at once (still async).
   */
  SANDBOX_BANK_RETURN_DELAY_MS: z.coerce.number().int().min(0).max(600_000).default(500),
  /**
   * The gateway's base URL (e.g. http://127.0.0.1:4000). With `BANK_WEBHOOK_SECRET` set, the
   * sandbox bank POSTs each return notification there, signed, to `/v1/bank/notifications`
   * as a real bank would; unset, it hands the notification to the same handler in-process.
   */
  SANDBOX_BANK_GATEWAY_URL: optionalUrl,
};
