import { randomUUID } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { DomainError, ErrorCode } from '../domain/errors';
import type { SecretBox } from '../crypto/secret-box';
import { executeInTransaction } from '../db/locks';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_LEASE_MS = 60 * 1000;

/** One use of an `Idempotency-Key`: keys are scoped per merchant. */
export interface IdempotencyScope {
  merchantId: string;
  key: string;
  method: string;
  path: string;
  /** sha256 (hex) of method, path and the canonical JSON body. */
  requestHash: string;
}

/** A claim of a key: only the holder of its token completes or releases it. */
export interface IdempotencyClaim extends IdempotencyScope {
  claimToken: string;
}

/**
 * `replay` carries the stored response: `text` (the exact JSON sent) for responses stored
 * sealed, `body` (a parsed JSON value) for rows stored before responses were sealed.
 */
export type IdempotencyBegin =
  | { kind: 'new'; claim: IdempotencyClaim }
  | { kind: 'replay'; status: number; text: string | null; body: unknown };

interface KeyRow {
  method: string;
  path: string;
  request_hash: string;
  state: 'IN_PROGRESS' | 'COMPLETED';
  response_status: number | null;
  response_body: unknown;
  response_sealed: string | null;
  expired: boolean;
}

/** A row can vanish (abandoned) or expire between the insert and the read; retry that few times. */
const MAX_ATTEMPTS = 5;

/**
 * Stores the first response to each `(merchant, Idempotency-Key)` for `ttlMs` (24 h) in
 * `idempotency_keys`, shared by every gateway instance. Responses are sealed with the operator's
 * key (all of them: a response may carry a client secret, a webhook secret, or a user's e-mail).
 *
 * A claim is a lease: the request holding it renews it every `heartbeatMs` while it runs (see
 * `renew`), so a key IN_PROGRESS whose lease was not renewed for `leaseMs` belongs to a request
 * whose process died. The next request with the key takes it over, in the same statement as
 * the claim, so of two racing retries one runs and the other gets 409. Leases and the 24 h are
 * measured by the database's clock (`now()`), the one clock every gateway shares: a gateway
 * whose own clock runs ahead can neither end another's lease early nor expire a stored answer.
 *
 * The claim, its renewals and a release run on the pool in autocommit: the IN_PROGRESS marker
 * must be visible to concurrent requests at once. The completion (`complete`) runs in the
 * request's own transaction, the one that holds its effect, and only while the claim is still
 * this request's: the effect and its stored answer commit together or not at all, and a
 * request whose key was taken over cannot commit its effect beside the new holder's.
 */
export class IdempotencyService {
  private readonly leaseMs: number;
  private readonly ttlMs: number;
  /** How often a running request renews its claim: a third of the lease, so two may fail. */
  readonly heartbeatMs: number;

  constructor(
    private readonly box: SecretBox,
    options: { leaseMs?: number; heartbeatMs?: number; ttlMs?: number } = {},
  ) {
    this.leaseMs = options.leaseMs ?? IDEMPOTENCY_LEASE_MS;
    this.ttlMs = options.ttlMs ?? IDEMPOTENCY_TTL_MS;
    this.heartbeatMs = options.heartbeatMs ?? Math.floor(this.leaseMs / 3);
  }

  /**
   * Claims the key for this request (`new`), or answers the stored response (`replay`).
   * Throws `idempotency_conflict` when the key belongs to a different request, or when the
   * first request holding it is still running.
   */
  async begin(em: EntityManager, scope: IdempotencyScope): Promise<IdempotencyBegin> {
    const connection = em.getConnection();
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const claimToken = randomUUID();
      // Inserts, or takes over an expired row or a dead claim (IN_PROGRESS past its lease) in
      // the same statement. A row of a live key is left alone (no row returned). Concurrent
      // claims serialise on the row: the second sees the first's fresh claim and gets nothing;
      // one whose completion is being written waits for that transaction and then sees it.
      const claimed = await connection.execute<{ claimed: number }[]>(
        `insert into idempotency_keys
           (merchant_id, key, method, path, request_hash, state, created_at, expires_at,
            claim_token)
         values (?, ?, ?, ?, ?, 'IN_PROGRESS', now(), now() + ? * interval '1 millisecond', ?)
         on conflict (merchant_id, key) do update set
           method = excluded.method,
           path = excluded.path,
           request_hash = excluded.request_hash,
           state = 'IN_PROGRESS',
           response_status = null,
           response_body = null,
           response_sealed = null,
           created_at = excluded.created_at,
           expires_at = excluded.expires_at,
           claim_token = excluded.claim_token,
           lease_renewed_at = null
         where idempotency_keys.expires_at <= now()
            or (idempotency_keys.state = 'IN_PROGRESS'
                and coalesce(idempotency_keys.lease_renewed_at, idempotency_keys.created_at)
                    <= now() - ? * interval '1 millisecond')
         returning 1 as claimed`,
        [
          scope.merchantId,
          scope.key,
          scope.method,
          scope.path,
          scope.requestHash,
          this.ttlMs,
          claimToken,
          this.leaseMs,
        ],
      );
      if (claimed.length > 0) return { kind: 'new', claim: { ...scope, claimToken } };

      const [row] = await connection.execute<KeyRow[]>(
        `select method, path, request_hash, state, response_status, response_body,
                response_sealed, expires_at <= now() as expired
           from idempotency_keys where merchant_id = ? and key = ?`,
        [scope.merchantId, scope.key],
      );
      // Abandoned, pruned or expired since the insert: claim again.
      if (!row || row.expired) continue;

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
      const text =
        row.response_sealed === null
          ? null
          : this.box.open(row.response_sealed, sealContext(scope.merchantId, scope.key));
      return { kind: 'replay', status: row.response_status, text, body: row.response_body };
    }
    throw new DomainError(
      ErrorCode.IdempotencyConflict,
      'A request with this Idempotency-Key is still being processed; retry later',
    );
  }

  /**
   * Stores the response of the request that claimed the key, sealed: `text` is the JSON body
   * exactly as sent (null: no body). Later uses replay it byte for byte. `tx` is the request's
   * transaction, the one holding its effect. Returns false, storing nothing, when the claim is
   * no longer this request's (taken over after a missed lease): the caller must then roll its
   * transaction back.
   */
  async complete(
    tx: EntityManager,
    claim: IdempotencyClaim,
    status: number,
    text: string | null,
  ): Promise<boolean> {
    const sealed =
      text === null ? null : this.box.seal(text, sealContext(claim.merchantId, claim.key));
    const rows = await executeInTransaction<{ key: string }>(
      tx,
      `update idempotency_keys
          set state = 'COMPLETED', response_status = ?, response_sealed = ?
        where merchant_id = ? and key = ? and claim_token = ? and state = 'IN_PROGRESS'
        returning key`,
      [status, sealed, claim.merchantId, claim.key, claim.claimToken],
    );
    return rows.length > 0;
  }

  /**
   * Renews a running request's claim (its lease starts again). Returns false once the claim is
   * no longer this request's: completed, released, or taken over after a missed lease.
   */
  async renew(em: EntityManager, claim: IdempotencyClaim): Promise<boolean> {
    const rows = await em.getConnection().execute<{ key: string }[]>(
      `update idempotency_keys set lease_renewed_at = now()
        where merchant_id = ? and key = ? and claim_token = ? and state = 'IN_PROGRESS'
        returning key`,
      [claim.merchantId, claim.key, claim.claimToken],
    );
    return rows.length > 0;
  }

  /**
   * Releases a claimed key without a stored response (5xx, crash): the client may retry. Run in
   * a transaction (`em` bound to one), the release commits with it.
   */
  async abandon(em: EntityManager, claim: IdempotencyClaim): Promise<void> {
    await em.getConnection().execute(
      `delete from idempotency_keys
        where merchant_id = ? and key = ? and claim_token = ? and state = 'IN_PROGRESS'`,
      [claim.merchantId, claim.key, claim.claimToken],
      'run',
      em.getTransactionContext(),
    );
  }

  /** Deletes keys past their 24 h; run by the job runner. Returns the number deleted. */
  async prune(em: EntityManager): Promise<number> {
    const result = await em
      .getConnection()
      .execute<{ affectedRows?: number }>(
        'delete from idempotency_keys where expires_at <= now()',
        [],
        'run',
      );
    return result.affectedRows ?? 0;
  }
}

/** The additional data a stored response is sealed with: it opens under its own key only. */
export function sealContext(merchantId: string, key: string): string {
  return `idempotency_response:${merchantId}:${key}`;
}
