import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, ErrorCode } from '../domain/errors';
import { ApiKey, KeyEnvironment } from '../db/entities/api-key.entity';
import { hashSecret, KEY_PREFIX } from './merchant.service';

/** Who is calling. Client secrets (one onramp, read only) join this union with onramps. */
export type Principal = {
  kind: 'secret_key';
  merchantId: string;
  keyId: string;
};

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;
const SECRET_KEY = /^sk_(test|live)_[A-Za-z0-9]{20,100}$/;

function unauthorized(message: string): DomainError {
  return new DomainError(ErrorCode.Unauthorized, message);
}

/**
 * Resolves an `Authorization` header to a principal. Missing, malformed, unknown, revoked and
 * wrong-environment keys are all 401 `unauthorized`; the message says which, never whose.
 */
export class AuthService {
  constructor(private readonly environment: KeyEnvironment) {}

  async authenticate(em: EntityManager, header: string | undefined): Promise<Principal> {
    if (header === undefined || header === '') {
      throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API key>"');
    }
    const match = BEARER.exec(header.trim());
    if (!match) throw unauthorized('Malformed Authorization header; expected "Bearer <API key>"');
    const token = match[1];
    if (!SECRET_KEY.test(token)) throw unauthorized('Malformed API key');
    if (!token.startsWith(KEY_PREFIX[this.environment])) {
      throw unauthorized(
        `This is a ${this.environment} deployment; use a ${KEY_PREFIX[this.environment]} key`,
      );
    }
    const key = await em.findOne(
      ApiKey,
      { keyHash: hashSecret(token) },
      { fields: ['id', 'merchant', 'environment', 'revokedAt'] },
    );
    if (!key || key.environment !== this.environment) throw unauthorized('Unknown API key');
    if (key.revokedAt) throw unauthorized('This API key has been revoked');
    return { kind: 'secret_key', merchantId: key.merchant.id, keyId: key.id };
  }
}
