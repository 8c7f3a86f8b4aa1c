import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * Every ciphertext starts with this prefix and the id of the key that sealed it:
 * `enc:v1:<key id>:<base64 of iv | tag | ciphertext>`. A stored value without the prefix is
 * never used as a secret: it is either a plaintext written before encryption at rest existed
 * (sealed by `onramp secrets reencrypt`, the one place that accepts it) or a value planted in
 * the database, which would otherwise escape the context binding every sealed value has.
 */
const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
const TAG_BYTES = 16;
export const KEY_BYTES = 32;

/** A value could not be opened: unknown key id, or a ciphertext that does not authenticate. */
export class SecretDecryptError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretDecryptError';
  }
}

/**
 * A key's id: the first 8 bytes (hex) of a hash of it. It names the key in every ciphertext so
 * an operator can tell which key a row needs, without revealing anything about the key.
 */
export function keyId(key: Buffer): string {
  return createHash('sha256').update('ngn-onramp key id\0').update(key).digest('hex').slice(0, 16);
}

/**
 * Parses an operator key: 32 bytes written as 64 hex digits or as base64 (standard or URL
 * alphabet). Returns null for anything else, so the config can name the variable.
 */
export function parseKey(text: string): Buffer | null {
  const trimmed = text.trim();
  if (/^[0-9a-fA-F]{64}$/.test(trimmed)) return Buffer.from(trimmed, 'hex');
  if (!/^[A-Za-z0-9+/_-]{43}=?$/.test(trimmed)) return null;
  const bytes = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  return bytes.length === KEY_BYTES ? bytes : null;
}

export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/**
 * AES-256-GCM under the operator's `ENCRYPTION_KEY`, with older keys (`ENCRYPTION_KEY_PREVIOUS`)
 * kept for opening only, so a key can be rotated without downtime. Each value is bound to a
 * context (additional authenticated data, e.g. `webhook_secret:<merchant id>`): a ciphertext
 * copied into another merchant's row does not open there.
 */
export class SecretBox {
  readonly currentKeyId: string;
  private readonly keys = new Map<string, Buffer>();

  constructor(current: Buffer, previous: Buffer[] = []) {
    for (const key of [current, ...previous]) {
      if (key.length !== KEY_BYTES) throw new Error(`an encryption key must be ${KEY_BYTES} bytes`);
    }
    this.currentKeyId = keyId(current);
    this.keys.set(this.currentKeyId, current);
    for (const key of previous) if (!this.keys.has(keyId(key))) this.keys.set(keyId(key), key);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentKeyId)!, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64');
    return `${PREFIX}${this.currentKeyId}:${sealed}`;
  }

  /** The plaintext of a sealed value; anything else (no prefix) is refused. */
  open(stored: string, context: string): string {
    if (!isSealed(stored)) {
      throw new SecretDecryptError(
        'value is not sealed (no enc:v1: prefix): a plaintext from before encryption at rest ' +
          'is sealed by `onramp secrets reencrypt`; anything else was not written by this service',
      );
    }
    const rest = stored.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    const id = colon > 0 ? rest.slice(0, colon) : '';
    const key = this.keys.get(id);
    if (!key) {
      throw new SecretDecryptError(
        `value sealed under key ${id || '(none)'}, which is neither ENCRYPTION_KEY nor listed in ENCRYPTION_KEY_PREVIOUS`,
      );
    }
    const raw = Buffer.from(rest.slice(colon + 1), 'base64');
    if (raw.length < IV_BYTES + TAG_BYTES) {
      throw new SecretDecryptError(`value sealed under key ${id} is truncated`);
    }
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
      return Buffer.concat([
        decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new SecretDecryptError(
        `value sealed under key ${id} does not authenticate (altered, or moved from another row)`,
      );
    }
  }

  /** Whether a stored value is already sealed under the current key (nothing to rewrite). */
  isCurrent(stored: string): boolean {
    return stored.startsWith(`${PREFIX}${this.currentKeyId}:`);
  }

  /**
   * Sealed under the current key: an older key's value is resealed. A plaintext from before
   * encryption at rest is sealed only when the caller says it expects one
   * (`legacyPlaintext`: the operator's `onramp secrets reencrypt`); otherwise it is refused
   * like `open` refuses it.
   */
  reseal(stored: string, context: string, options: { legacyPlaintext?: boolean } = {}): string {
    if (this.isCurrent(stored)) return stored;
    if (options.legacyPlaintext && !isSealed(stored)) return this.seal(stored, context);
    return this.seal(this.open(stored, context), context);
  }
}
