import { dec, isDecimalString } from '../../../domain/money';
import { JsonNumber, isJsonObject, type JsonValue } from './exact-json';

/** A JSON object as the exact reader gives it. */
export type JsonObject = { [key: string]: JsonValue };

const TEN_DIGITS = /^[0-9]{10}$/;
/** CBN bank codes are 3 digits (058), NIP institution codes 5-6 (50515, 000015). */
const BANK_CODE = /^[0-9]{3,6}$/;
/** 100 billion NGN, as `parseInboundTransfer` allows: anything above is not a real transfer. */
const MAX_NAIRA = dec('100000000000');

export function field(object: JsonObject, name: string): JsonValue | undefined {
  return Object.prototype.hasOwnProperty.call(object, name) ? object[name] : undefined;
}

export function objectField(object: JsonObject, name: string): JsonObject | null {
  const value = field(object, name);
  return isJsonObject(value) ? value : null;
}

export function stringField(object: JsonObject, name: string): string | null {
  const value = field(object, name);
  return typeof value === 'string' ? value : null;
}

/** A string field, trimmed, at most `max` characters; null when absent, blank or not a string. */
export function textField(object: JsonObject, name: string, max = 200): string | null {
  const value = stringField(object, name)?.trim();
  return value ? value.slice(0, max) : null;
}

/**
 * A naira amount in major units, a JSON number or a string (Monnify writes both), as a
 * 2-place decimal string; null unless it is positive, has at most 2 decimals, no exponent,
 * and is at most 100 billion. The text is read as written, never through a float.
 */
export function nairaAmount(value: JsonValue | undefined): string | null {
  const text =
    value instanceof JsonNumber ? value.text : typeof value === 'string' ? value.trim() : null;
  if (text === null || !isDecimalString(text, 2)) return null;
  const amount = dec(text);
  if (amount.lte(0) || amount.gt(MAX_NAIRA)) return null;
  return amount.toFixed(2);
}

/** A 10-digit NUBAN, or null (absent, masked such as `******4872`, or anything else). */
export function fullAccountNumber(value: JsonValue | undefined): string | null {
  return typeof value === 'string' && TEN_DIGITS.test(value) ? value : null;
}

/** A bank code of digits (what a disbursement's `destinationBankCode` takes), or null. */
export function bankCode(value: JsonValue | undefined): string | null {
  return typeof value === 'string' && BANK_CODE.test(value.trim()) ? value.trim() : null;
}

export function isBankCode(value: string): boolean {
  return BANK_CODE.test(value);
}

export function isAccountNumber(value: string): boolean {
  return TEN_DIGITS.test(value);
}

/** Lagos keeps West Africa Time all year (UTC+01:00, no daylight saving). */
const LAGOS_OFFSET_MINUTES = 60;
const WITH_OFFSET =
  /^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\.[0-9]{1,9})?)?)(Z|[+-][0-9]{2}:?[0-9]{2})$/;
const LOCAL_ISO =
  /^([0-9]{4})-([0-9]{2})-([0-9]{2})[ T]([0-9]{2}):([0-9]{2})(?::([0-9]{2})(?:\.([0-9]{1,9}))?)?$/;
const LOCAL_DAY_FIRST =
  /^([0-9]{2})\/([0-9]{2})\/([0-9]{4}) ([0-9]{1,2}):([0-9]{2})(?::([0-9]{2}))? ?([AP]M)$/i;

function lagosTime(parts: {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  millis: number;
}): Date | null {
  const { year, month, day, hour, minute, second, millis } = parts;
  const wall = new Date(Date.UTC(year, month - 1, day, hour, minute, second, millis));
  // Date.UTC rolls 31/02 over into March: a date that does not round-trip is not a date.
  if (
    wall.getUTCFullYear() !== year ||
    wall.getUTCMonth() !== month - 1 ||
    wall.getUTCDate() !== day ||
    wall.getUTCHours() !== hour ||
    wall.getUTCMinutes() !== minute ||
    wall.getUTCSeconds() !== second
  ) {
    return null;
  }
  return new Date(wall.getTime() - LAGOS_OFFSET_MINUTES * 60_000);
}

const millisOf = (fraction: string | undefined) =>
  fraction ? Number(fraction.padEnd(3, '0').slice(0, 3)) : 0;

/**
 * A time as Monnify writes it. Its samples use three forms: `2021-11-17 11:28:42.615` (MN-EVT,
 * reserved-account `paidOn`), `17/11/2021 3:48:10 PM` (MN-EVT offline payment, disbursement
 * `completedOn`, the status API's `paidOn`) and ISO 8601 with an offset
 * (`2022-11-03T14:13:38.140+0000`, disbursement `dateCreated`). The first two carry no zone:
 * they are read as Lagos time (UTC+01:00), Monnify's own. Null for anything else.
 */
export function monnifyTime(value: JsonValue | undefined): Date | null {
  if (typeof value !== 'string') return null;
  const text = value.trim();
  const withOffset = WITH_OFFSET.exec(text);
  if (withOffset) {
    const zone =
      withOffset[3]!.length === 5
        ? `${withOffset[3]!.slice(0, 3)}:${withOffset[3]!.slice(3)}`
        : withOffset[3]!;
    const at = new Date(`${withOffset[1]}T${withOffset[2]}${zone}`);
    return Number.isNaN(at.getTime()) ? null : at;
  }
  const iso = LOCAL_ISO.exec(text);
  if (iso) {
    return lagosTime({
      year: Number(iso[1]),
      month: Number(iso[2]),
      day: Number(iso[3]),
      hour: Number(iso[4]),
      minute: Number(iso[5]),
      second: Number(iso[6] ?? 0),
      millis: millisOf(iso[7]),
    });
  }
  const dayFirst = LOCAL_DAY_FIRST.exec(text);
  if (dayFirst) {
    const hour12 = Number(dayFirst[4]);
    if (hour12 < 1 || hour12 > 12) return null;
    const pm = dayFirst[7]!.toUpperCase() === 'PM';
    return lagosTime({
      year: Number(dayFirst[3]),
      month: Number(dayFirst[2]),
      day: Number(dayFirst[1]),
      hour: (hour12 % 12) + (pm ? 12 : 0),
      minute: Number(dayFirst[5]),
      second: Number(dayFirst[6] ?? 0),
      millis: 0,
    });
  }
  return null;
}
