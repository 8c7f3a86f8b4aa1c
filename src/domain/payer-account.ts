import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * The payer proves he is the payer: a choice through a resolution link carries the full
 * account number the transfer came from, which the merchant never sees (it gets the last 4
 * digits only). Without it, whoever holds the link (the merchant it was sent by, anyone it was
 * forwarded to) could choose for the payer.
 */

/** Wrong account numbers a deposit's links accept, all links together, before they lock. */
export const PAYER_ACCOUNT_ATTEMPTS = 5;

/**
 * The account number as typed: spaces and hyphens (how people group digits) dropped, then
 * exactly 10 digits (a NUBAN), else null. A malformed entry is not counted as a wrong guess:
 * it tells nothing about the account.
 */
export function typedAccountNumber(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 40) return null;
  const digits = value.replace(/[\s-]/g, '');
  return /^[0-9]{10}$/.test(digits) ? digits : null;
}

const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();

/**
 * Whether the typed number is the deposit's sender account, compared in constant time (fixed
 * length digests): how many leading digits of a guess were right must not show in the timing.
 * An unknown sender account matches nothing.
 */
export function isPayerAccount(stored: string | null, typed: string): boolean {
  if (!stored) return false;
  return timingSafeEqual(digest(stored), digest(typed));
}
