import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { executeInTransaction } from '../db/locks';
import { DomainError, ErrorCode } from '../domain/errors';
import { newId, newSecret } from '../domain/ids';
import { hashSecret } from '../crypto/secret-hash';

export const OPERATOR_TOKEN_PREFIX = 'op_';
const BEARER_OPERATOR = /^Bearer (op_[A-Za-z0-9]{20,100})$/;
const NAME = /^[A-Za-z0-9._@-]{1,64}$/;

/** Who is calling the admin endpoint: recorded as the actor of its audit entries. */
export interface OperatorPrincipal {
  tokenId: string;
  name: string;
}

export interface IssuedOperatorToken {
  tokenId: string;
  name: string;
  /** The plain token: returned once, never stored. */
  token: string;
}

const unauthorized = () =>
  new DomainError(ErrorCode.Unauthorized, 'A valid operator token is required');

/**
 * Operator tokens for the admin GraphQL endpoint: one per person, issued and revoked with the
 * command line (which needs database access, so only those who run the service can mint them).
 * Only SHA-256 hashes are stored. Merchant keys never open the admin endpoint.
 */
export class OperatorTokenService {
  constructor(private readonly clock: Clock) {}

  async issue(tx: EntityManager, name: string): Promise<IssuedOperatorToken> {
    if (!NAME.test(name)) {
      throw new DomainError(
        ErrorCode.InvalidParameter,
        'Operator name must be 1-64 letters, digits, ".", "_", "@" or "-"',
      );
    }
    const token = newSecret(OPERATOR_TOKEN_PREFIX);
    const tokenId = newId('opt', this.clock);
    await executeInTransaction(
      tx,
      'insert into operator_tokens (id, name, token_hash, created_at) values (?, ?, ?, ?)',
      [tokenId, name, hashSecret(token), this.clock.now()],
    );
    return { tokenId, name, token };
  }

  /** Revoking twice is harmless; returns the token's name. */
  async revoke(tx: EntityManager, tokenId: string): Promise<{ name: string; revokedAt: Date }> {
    const rows = await executeInTransaction<{ name: string; revoked_at: Date | string }>(
      tx,
      `update operator_tokens set revoked_at = coalesce(revoked_at, ?) where id = ?
       returning name, revoked_at`,
      [this.clock.now(), tokenId],
    );
    if (!rows[0]) throw new DomainError(ErrorCode.NotFound, `No operator token ${tokenId}`);
    return { name: rows[0].name, revokedAt: new Date(rows[0].revoked_at) };
  }

  async authenticate(
    em: EntityManager,
    authorization: string | undefined,
  ): Promise<OperatorPrincipal> {
    const match = authorization ? BEARER_OPERATOR.exec(authorization) : null;
    if (!match) throw unauthorized();
    const rows = await em
      .getConnection()
      .execute<Array<{ id: string; name: string }>>(
        'select id, name from operator_tokens where token_hash = ? and revoked_at is null',
        [hashSecret(match[1])],
      );
    if (!rows[0]) throw unauthorized();
    return { tokenId: rows[0].id, name: rows[0].name };
  }
}
