/**
 * Our return references (`deposit_returns` ids: `ret_` + a ULID, `ret_01J9ZK...`) and Paystack's
 * transfer references, which must be lowercase alphanumerics with `-` and `_` (PS-OAS
 * `components/schemas/TransferBase.yaml`). A ULID is Crockford base32, which reads the same in
 * either case, so the lowercase form maps back without loss.
 */
const OURS = /^ret_[0-9A-HJKMNP-TV-Z]{26}$/;
const THEIRS = /^ret_[0-9a-hjkmnp-tv-z]{26}$/;

/** The reference Paystack gets for one of our returns; null when it is not one of ours. */
export function toPaystackReference(reference: string): string | null {
  return OURS.test(reference) ? reference.toLowerCase() : null;
}

/**
 * Our return reference for a Paystack transfer reference, or null: a transfer someone else
 * made on the same Paystack integration (a payout from the dashboard) is not ours.
 */
export function fromPaystackReference(reference: string): string | null {
  return THEIRS.test(reference) ? `ret_${reference.slice(4).toUpperCase()}` : null;
}
