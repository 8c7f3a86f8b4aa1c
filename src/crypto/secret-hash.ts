import { hash } from 'node:crypto';

/** SHA-256 in hex, in one call (runs on every authenticated request). */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}
