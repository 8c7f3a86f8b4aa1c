import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The token in a payer resolution link (docs/api.md, "Payer resolution links"):
 * `{link id}.{expiry, epoch seconds}.{base64url HMAC-SHA256 of "link id.expiry"}`. The expiry
 * travels in the token so the signature can be checked before any database lookup: an altered
 * or invented token costs one HMAC. The key is derived from the service's encryption key
 * (src/crypto/resolution-link-key.ts), so every gateway checks what any gateway signed.
 */
export interface ResolutionToken {
  linkId: string;
  expiresAt: Date;
}

const LINK_ID = /^rsl_[0-9A-HJKMNP-TV-Z]{26}$/;
const EPOCH_SECONDS = /^[1-9][0-9]{0,11}$/;
const MAC = /^[A-Za-z0-9_-]{43}$/;

const macOf = (key: Buffer, linkId: string, seconds: string): Buffer =>
  createHmac('sha256', key).update(`${linkId}.${seconds}`).digest();

/** Expiries are whole seconds: the one the row keeps is the one signed. */
export function wholeSeconds(at: Date): Date {
  return new Date(Math.floor(at.getTime() / 1000) * 1000);
}

export function signResolutionToken(key: Buffer, token: ResolutionToken): string {
  if (!LINK_ID.test(token.linkId)) throw new RangeError('not a resolution link id');
  const seconds = String(Math.floor(token.expiresAt.getTime() / 1000));
  return `${token.linkId}.${seconds}.${macOf(key, token.linkId, seconds).toString('base64url')}`;
}

/**
 * The link id and signed expiry, or null for anything not signed with `key` (wrong shape,
 * altered id, altered expiry, altered signature). Expiry is the caller's to check.
 */
export function verifyResolutionToken(key: Buffer, text: string): ResolutionToken | null {
  if (text.length > 120) return null;
  const parts = text.split('.');
  if (parts.length !== 3) return null;
  const [linkId, seconds, mac] = parts;
  if (!LINK_ID.test(linkId) || !EPOCH_SECONDS.test(seconds) || !MAC.test(mac)) return null;
  // The text compared, not decoded bytes: base64url's last character has bits no byte uses,
  // so decoding would accept a second spelling of the signature. Constant time: how much of
  // a guessed signature was right must not show in the timing.
  const given = Buffer.from(mac, 'latin1');
  const expected = Buffer.from(macOf(key, linkId, seconds).toString('base64url'), 'latin1');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return null;
  return { linkId, expiresAt: new Date(Number(seconds) * 1000) };
}

export const LINK_LIFETIME = { defaultSeconds: 86_400, minSeconds: 300, maxSeconds: 604_800 };
