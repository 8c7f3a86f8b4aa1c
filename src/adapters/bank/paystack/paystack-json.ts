import { dec, isDecimalString } from '../../../domain/money';

/** A JSON object as Paystack sends it (every field unknown until read). */
export type Json = Record<string, unknown>;

export function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A string field, or null when absent, null or empty; `undefined` when it is not a string. */
export function stringField(data: Json, field: string): string | null | undefined {
  const value = data[field];
  if (value === undefined || value === null || value === '') return null;
  return typeof value === 'string' ? value : undefined;
}

const TEN_DIGITS = /^[0-9]{10}$/;

/** A 10-digit NUBAN, or null: Paystack masks payers' numbers (`XXXXXX0011`), never ours. */
export function fullAccountNumber(value: unknown): string | null {
  return typeof value === 'string' && TEN_DIGITS.test(value) ? value : null;
}

/**
 * An amount in kobo as Paystack sends it (a JSON integer) to an exact NGN decimal string with
 * 2 places, or null when it is not a positive safe integer: a fraction of a kobo, a negative
 * or zero amount, a string, or a number past 2^53 (which JSON.parse has already rounded).
 */
export function koboToNgn(value: unknown): string | null {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value <= 0) return null;
  return dec(value).div(100).toFixed(2);
}

/** NGN (decimal string, at most 2 places) to integer kobo; null when it is not one. */
export function ngnToKobo(amountNgn: string): number | null {
  if (!isDecimalString(amountNgn, 2)) return null;
  const kobo = dec(amountNgn).mul(100);
  if (!kobo.isInteger() || kobo.lte(0) || kobo.gt(Number.MAX_SAFE_INTEGER)) return null;
  return kobo.toNumber();
}

const ISO_DATE_TIME =
  /^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]{1,9})?(Z|[+-][0-9]{2}:?[0-9]{2})$/;

/** Paystack's `paid_at` (`2016-09-30T21:10:19.000Z`); `undefined` when it is not one. */
export function isoDate(value: string): Date | undefined {
  if (!ISO_DATE_TIME.test(value)) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : at;
}
