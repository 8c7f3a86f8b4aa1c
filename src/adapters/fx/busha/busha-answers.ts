import { z } from 'zod';
import { Dec, dec } from '../../../domain/money';
import { FxTemporaryFailure, type FxFill, type FxOrder } from '../fx-venue';

/**
 * Busha's answers as its documentation shows them (docs/providers-fx.md lists the pages): the
 * success envelope `{status: "success", message, data}` and the error envelope
 * `{status?: "error", message?, error: {name, message}}`. Only the fields the venue relies on
 * are checked; anything else Busha adds is ignored.
 */
const decimal = z.string().regex(/^[0-9]+(\.[0-9]+)?$/, 'must be a decimal string');

export const quoteSchema = z.object({
  id: z.string().min(1),
  source_currency: z.string(),
  target_currency: z.string(),
  source_amount: decimal,
  target_amount: decimal,
  expires_at: z.string().datetime({ offset: true }),
});
export type BushaQuote = z.infer<typeof quoteSchema>;

export const transferSchema = z.object({
  id: z.string().min(1),
  quote_id: z.string().min(1),
  status: z.string().min(1),
  source_currency: z.string(),
  target_currency: z.string(),
  source_amount: decimal,
  target_amount: decimal,
  created_at: z.string().datetime({ offset: true }).optional(),
});
export type BushaTransfer = z.infer<typeof transferSchema>;

export const quoteAnswer = z.object({ data: quoteSchema });
export const transferAnswer = z.object({ data: transferSchema });
export const transferListAnswer = z.object({
  data: z.array(transferSchema),
  pagination: z.object({ next_cursor: z.string().nullish() }).partial().nullish(),
});

const errorEnvelope = z.object({
  message: z.string().optional(),
  error: z.object({ name: z.string().optional(), message: z.string().optional() }).optional(),
});

/** Busha answered with an error status: the answer is definite (unlike a timeout). */
export class BushaRefusal extends Error {
  override readonly name = 'BushaRefusal';
  constructor(
    readonly status: number,
    /** `error.name` of the envelope: bad_request, unauthorized, not_found, service_unavailable. */
    readonly code: string,
    message: string,
  ) {
    super(`Busha answered ${status} ${code}: ${message}`);
  }
}

/** The refusal an error answer carries; a body that is not the documented envelope still is one. */
export function refusalOf(status: number, body: unknown): BushaRefusal {
  const parsed = errorEnvelope.safeParse(body);
  const envelope = parsed.success ? parsed.data : {};
  const message = envelope.error?.message ?? envelope.message ?? 'no message';
  return new BushaRefusal(status, envelope.error?.name ?? `http_${status}`, message.slice(0, 300));
}

/**
 * What a refusal means for the order. Busha documents codes by HTTP status only, so the
 * reasons it does not name (insufficient balance, quote expired or used) are read from the
 * message: only a live account can confirm these words (docs/providers-fx.md).
 * - `temporary`: the venue cannot fill now (429, 503, a credentials problem an operator fixes,
 *   insufficient balance or liquidity, maintenance): FLAGGED.
 * - `permanent`: the venue refuses the order itself (bad pair, amount outside its limits, an
 *   account restricted, 403): FAILED.
 * - `quote_expired`, `quote_used`: the transfer's quote is gone; look the order up first.
 * - `unknown`: a 5xx to an execute, which may have happened: retried under the same key.
 */
export type Refusal = 'temporary' | 'permanent' | 'quote_expired' | 'quote_used' | 'unknown';

const TEMPORARY_WORDS = /insufficient|liquidity|maintenance|unavailable|temporar|try again/i;

export function classifyRefusal(refusal: BushaRefusal, step: 'quote' | 'transfer'): Refusal {
  const { status } = refusal;
  const text = refusal.message;
  if (status === 429 || status === 503 || status === 401) return 'temporary';
  if (status >= 500) return step === 'quote' ? 'temporary' : 'unknown';
  if (status === 403) return 'permanent';
  if (step === 'transfer') {
    if (/expire/i.test(text) || status === 404) return 'quote_expired';
    if (/already|been used|used quote|duplicate/i.test(text)) return 'quote_used';
  }
  if (TEMPORARY_WORDS.test(text)) return 'temporary';
  return 'permanent';
}

/** Where a transfer stands (docs.busha.io "Transfer status"; conversions end at funds_converted). */
export type TransferState = 'converted' | 'cancelled' | 'in_progress';

export function transferState(status: string): TransferState {
  if (status === 'funds_converted' || status === 'completed') return 'converted';
  if (['cancelled', 'failed', 'funds_refunded', 'expired'].includes(status)) return 'cancelled';
  // pending, processing, funds_received, and any status Busha adds: not final yet.
  return 'in_progress';
}

/**
 * The fill a converted transfer gives the order: the USD bought, rounded down to 6 decimals.
 * A transfer that is not this order's sale (another amount or currency) fills nothing: the
 * deposit is FLAGGED for an operator rather than settled on someone else's conversion.
 */
export function fillOf(transfer: BushaTransfer, order: FxOrder, targetCurrency: string): FxFill {
  const sold: Dec = dec(transfer.source_amount);
  if (
    transfer.source_currency !== 'NGN' ||
    transfer.target_currency !== targetCurrency ||
    !sold.eq(order.amountNgn)
  ) {
    throw new FxTemporaryFailure(
      `Busha transfer ${transfer.id} sold ${transfer.source_amount} ${transfer.source_currency} ` +
        `for ${transfer.target_currency}, not order ${order.clientOrderId}'s ` +
        `${order.amountNgn.toFixed(2)} NGN for ${targetCurrency}`,
    );
  }
  return {
    usdBought: dec(dec(transfer.target_amount).toDecimalPlaces(6, Dec.ROUND_DOWN)),
    venueReference: transfer.id,
  };
}
