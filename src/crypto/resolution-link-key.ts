import { hkdfSync } from 'node:crypto';
import type { Config } from '../config';
import { DEVELOPMENT_ENCRYPTION_KEY } from './encryption-keys';
import { parseKey } from './secret-box';

/**
 * The HMAC key of payer resolution links: HKDF-SHA256 (info `resolution-link`) of the primary
 * encryption key, so every gateway (all share that key) signs and checks the same links, and
 * the encryption key itself never signs anything. Rotating ENCRYPTION_KEY invalidates the
 * links already sent (the merchant asks for new ones).
 */
export function resolutionLinkKey(config: Pick<Config, 'ENCRYPTION_KEY'>): Buffer {
  const primary = parseKey(config.ENCRYPTION_KEY ?? DEVELOPMENT_ENCRYPTION_KEY);
  if (!primary) throw new Error('ENCRYPTION_KEY is not a key');
  return Buffer.from(hkdfSync('sha256', primary, Buffer.alloc(0), 'resolution-link', 32));
}
