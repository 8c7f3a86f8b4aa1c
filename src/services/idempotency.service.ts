import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** One use of an `Idempotency-Key`: keys are scoped per merchant. */
export interface IdempotencyScope {
  merchantId: string;
  key: string;
  method: string;
  path: string;
  /** sha256 (hex) of method, path and the canonical JSON body. */
  requestHash: string;
}

export type IdempotencyBegin = { kind: 'new' } | { kind: 'replay'; status: number; body: unknown };

interface KeyRow {
  method: string;
  path: string;
  request_hash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response_status: number | null;
  response_body: unknown;
  expires_at: Date;
}

/** A row can vanish (abandoned) or expire between the insert and the read; retry that few times. */
const MAX_ATTEMPTS = 5;

/**
 * Stores the first response to each `(merchant, Idempotency-Key)` for `ttlMs` (24 h) in
 * `idempotency_keys`, shared by every gateway instance.
 *
 * Statements run on the pool in autocommit, never inside the caller's transaction: the
 * IN_PROGRESS marker must be visible to concurrent requests at once, and must survive a
 * rollback of the handler's own work.
 */
export class IdempotencyService {
  constructor(
    private readonly clock: Clock,
    private readonly ttlMs: number = IDEMPOTENCY_TTL_MS,
  ) {}

  /**
   * Claims the key for this request (`new`), or answers the stored response (`replay`).
   * Throws `idempotency_conflict` when the key belongs to a different request, or when the
   * first request holding it is still running.
   */
  async begin(em: EntityManager, scope: IdempotencyScope): Promise<IdempotencyBegin> {
    const connection = em.getConnection();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const now = this.clock.now();
      const expiresAt = new Date(now.getTime() + this.ttlMs);
      // Inserts, or takes over an expired row in the same statement. A row of a live key is
      // left alone (no row returned). Concurrent claims serialise on the primary key.
      const claimed = await connection.execute<{ claimed: number }[]>(
        `insert into idempotency_keys
           (merchant_id, key, method, path, request_hash, state, created_at, expires_at)
         values (?, ?, ?, ?, ?, 'IN_PROGRESS', ?, ?)
         on conflict (merchant_id, key) do update set
           method = excluded.method,
           path = excluded.path,
           request_hash = excluded.request_hash,
           state = 'IN_PROGRESS',
           response_status = null,
           response_body = null,
           created_at = excluded.created_at,
           expires_at = excluded.expires_at
         where idempotency_keys.expires_at <= excluded.created_at
         returning 1 as claimed`,
        [scope.merchantId, scope.key, scope.method, scope.path, scope.requestHash, now, expiresAt],
      );
      if (claimed.length > 0) return { kind: 'new' };

      const [row] = await connection.execute<KeyRow[]>(
        `select method, path, request_hash, state, response_status, response_body, expires_at
           from idempotency_keys where merchant_id = ? and key = ?`,
        [scope.merchantId, scope.key],
      );
      // Abandoned, pruned or expired since the insert: claim again.
      if (!row || new Date(row.expires_at).getTime() <= now.getTime()) continue;

      if (
        row.request_hash !== scope.requestHash ||
        row.method !== scope.method ||
        row.path !== scope.path
      ) {
        throw new DomainError(
          ErrorCode.IdempotencyConflict,
          'Idempotency-Key was already used with a different request (method, path or body); use a new key for a new request',
        );
      }
      if (row.state === 'IN_PROGRESS' || row.response_status === null) {
        throw new DomainError(
          ErrorCode.IdempotencyConflict,
          'A request with this Idempotency-Key is still being processed; retry later',
        );
      }
      return { kind: 'replay', status: row.response_status, body: row.response_body };
    }
    throw new DomainError(
      ErrorCode.IdempotencyConflict,
      'A request with this Idempotency-Key is still being processed; retry later',
    );
  }

  /** Stores the response of the request that claimed the key; later uses replay it. */
  async complete(
    em: EntityManager,
    scope: IdempotencyScope,
    status: number,
    body: unknown,
  ): Promise<void> {
    await em.getConnection().execute(
      `update idempotency_keys
          set state = 'COMPLETED', response_status = ?, response_body = ?::jsonb
        where merchant_id = ? and key = ? and request_hash = ? and state = 'IN_PROGRESS'`,
      [
        status,
        body === undefined ? null : JSON.stringify(body),
        scope.merchantId,
        scope.key,
        scope.requestHash,
      ],
    );
  }

  /** Releases a claimed key without a stored response (5xx, crash): the client may retry. */
  async abandon(em: EntityManager, scope: IdempotencyScope): Promise<void> {
    await em.getConnection().execute(
      `delete from idempotency_keys
        where merchant_id = ? and key = ? and request_hash = ? and state = 'IN_PROGRESS'`,
      [scope.merchantId, scope.key, scope.requestHash],
    );
  }

  /** Deletes keys past their 24 h; run by the job runner. Returns the number deleted. */
  async prune(em: EntityManager): Promise<number> {
    const result = await em
      .getConnection()
      .execute<{ affectedRows?: number }>(
        'delete from idempotency_keys where expires_at <= ?',
        [this.clock.now()],
        'run',
      );
    return result.affectedRows ?? 0;
  }
}
