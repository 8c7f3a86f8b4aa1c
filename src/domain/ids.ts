import { randomBytes, randomFillSync } from 'node:crypto';
import { monotonicFactory, ulid as plainUlid } from 'ulid';
import type { Clock } from '../clock';

/**
 * ulid's default source makes one `crypto.getRandomValues` call per random character (16 a
 * ULID, ~33 us of a request's CPU, measured by the read benchmark). This hands out the same
 * kind of value (a cryptographically random byte / 256) from a pool refilled 1 KiB at a time.
 */
const pool = Buffer.alloc(1024);
let drawn = pool.length;
function pooledRandom(): number {
  if (drawn === pool.length) {
    randomFillSync(pool);
    drawn = 0;
  }
  const byte = pool[drawn];
  drawn += 1;
  return byte / 256;
}

const ulid = monotonicFactory(pooledRandom);

/** A ULID for ids that need not sort within a millisecond (request ids). */
export function randomUlid(): string {
  return plainUlid(undefined, pooledRandom);
}

/**
 * Public identifiers: a type prefix and a ULID, so ids sort by creation time and say what
 * they name (`rate_01J...`, `mer_01J...`).
 */
export function newId(prefix: string, clock: Clock): string {
  return `${prefix}_${ulid(clock.now().getTime())}`;
}

/** A bearer secret: prefix plus 32 random bytes in base62-ish url-safe form. */
export function newSecret(prefix: string): string {
  return `${prefix}${randomBytes(32).toString('base64url').replace(/[-_]/g, '')}`;
}

const PAYMENT_REFERENCE_ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** An onramp's payment reference: `PAY` and 12 characters of Crockford's base 32. */
export function newPaymentReference(): string {
  const bytes = newSecret('').slice(0, 12);
  let out = 'PAY';
  for (let i = 0; i < 12; i += 1) out += PAYMENT_REFERENCE_ALPHABET[bytes.charCodeAt(i) % 32];
  return out;
}

/** A sandbox transfer's bank reference when the caller gives none. */
export function newSandboxBankReference(): string {
  return `SBX-${ulid()}`;
}
