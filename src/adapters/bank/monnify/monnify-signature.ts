import { createHmac, timingSafeEqual } from 'node:crypto';

/** The header Monnify signs every notification with (MN-EVT "Transaction Hash Computation"). */
export const MONNIFY_SIGNATURE_HEADER = 'monnify-signature';

const SHA512_HEX = /^[0-9a-fA-F]{128}$/;

/**
 * `hex(HMAC-SHA512(secret key, body))` over the bytes as sent. Monnify's own example hashes
 * `JSON.stringify(payload)`, and its published hash matches only the compact form of its
 * pretty-printed sample (test/unit/monnify-notifications.test.ts): so we hash the raw bytes
 * received, never a re-serialisation.
 */
export function signMonnifyBody(secretKey: string, rawBody: Buffer | string): string {
  return createHmac('sha512', secretKey)
    .update(typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody)
    .digest('hex');
}

/** Constant-time check of a `monnify-signature` value (the length is checked first). */
export function monnifySignatureMatches(
  secretKey: string,
  rawBody: Buffer,
  signature: string,
): boolean {
  const given = signature.trim();
  if (!SHA512_HEX.test(given)) return false;
  const expected = Buffer.from(signMonnifyBody(secretKey, rawBody), 'hex');
  return timingSafeEqual(expected, Buffer.from(given, 'hex'));
}
