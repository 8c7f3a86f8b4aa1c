import { randomBytes } from 'node:crypto';
import { monotonicFactory } from 'ulid';
import type { Clock } from '../clock';

const ulid = monotonicFactory();

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

/** A sandbox transfer's bank reference when the caller gives none. */
export function newSandboxBankReference(): string {
  return `SBX-${ulid()}`;
}
