import Decimal from 'decimal.js';

/**
 * All money arithmetic goes through this Decimal (never binary floats). Precision is far
 * beyond any amount we hold; rounding is always explicit at the edges.
 */
export const Dec = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN });
export type Dec = InstanceType<typeof Dec>;

export const NGN_DECIMALS = 2;
export const ASSET_DECIMALS = 6;

export function dec(value: Decimal.Value): Dec {
  return new Dec(value);
}

/** Round toward zero to `places` decimals and render with exactly that many. */
export function toFixedDown(value: Dec, places: number): string {
  return value.toDecimalPlaces(places, Dec.ROUND_DOWN).toFixed(places);
}

/**
 * `toFixedDown(dec(value), places)` for a decimal string, without building a Decimal when the
 * text already is that answer: PostgreSQL writes a non-negative `numeric(p, places)` column in
 * exactly that form (no exponent, no sign, no leading zeros), and such text rounds down to
 * itself. Anything else (a negative amount among them: -0.00 renders as 0.00) takes the Decimal.
 */
export function fixedDownText(value: string, places: number): string {
  const point = value.length - places - 1;
  if (point > 0 && value.charCodeAt(point) === 0x2e && CANONICAL_FIXED.test(value)) return value;
  return toFixedDown(dec(value), places);
}

/** A non-negative plain decimal with a fraction: `(0|[1-9][0-9]*)\.[0-9]+`. */
const CANONICAL_FIXED = /^(0|[1-9][0-9]*)\.[0-9]+$/;

export function toFixedUp(value: Dec, places: number): string {
  return value.toDecimalPlaces(places, Dec.ROUND_UP).toFixed(places);
}

/** Strict decimal-string check for amounts arriving from clients (no exponent, no sign). */
export function isDecimalString(value: string, maxPlaces: number): boolean {
  return new RegExp(`^(0|[1-9][0-9]{0,17})(\\.[0-9]{1,${maxPlaces}})?$`).test(value);
}
