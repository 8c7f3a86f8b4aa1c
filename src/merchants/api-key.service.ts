import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import type { KeyEnvironment } from '../domain/key-environment';
import { executeInTransaction } from '../db/locks';
import { isApiScope, type ApiScope } from '../domain/api-scopes';
import { parseAllowedIps } from '../domain/allowed-ips';
import { DomainError, ErrorCode, invalidParameter, missingParameter } from '../domain/errors';
import { TEXT_ARRAY, textArray } from '../db/text-array';
import { newId, newSecret } from '../domain/ids';
import type { Cursor } from '../domain/pagination';
import type { AuditLogService } from '../audit';
import { hashSecret } from '../crypto/secret-hash';
import { KEY_PREFIX, RESTRICTED_KEY_PREFIX } from './merchant.service';

/** What the API shows of a key: never the secret, never its hash. */
export interface ApiKeyView {
  id: string;
  /** Null for keys the operator issued (`keys issue`). */
  name: string | null;
  scopes: ApiScope[];
  allowedIps: string[] | null;
  /** The key's first characters (`rk_test_ab12`), to tell keys apart. */
  keyPrefix: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface CreateApiKeyInput {
  name?: unknown;
  scopes?: unknown;
  allowedIps?: unknown;
}

/** At most this many unrevoked keys per merchant. */
export const MAX_LIVE_KEYS = 100;

const COLUMNS = 'id, name, scopes, allowed_ips, key_prefix, created_at, revoked_at';

interface KeyRow {
  id: string;
  name: string | null;
  scopes: string[];
  allowed_ips: string[] | null;
  key_prefix: string;
  created_at: Date | string;
  revoked_at: Date | string | null;
}

const toView = (row: KeyRow): ApiKeyView => ({
  id: row.id,
  name: row.name,
  scopes: row.scopes.filter(isApiScope),
  allowedIps: row.allowed_ips,
  keyPrefix: row.key_prefix,
  createdAt: new Date(row.created_at),
  revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
});

/** An audit snapshot of a key (the view, dates as ISO text). */
const snapshot = (key: ApiKeyView) => ({
  ...key,
  createdAt: key.createdAt.toISOString(),
  revokedAt: key.revokedAt?.toISOString() ?? null,
});

/** `all` alone, or a non-empty list of the other scopes (duplicates dropped). */
export function parseScopes(value: unknown): ApiScope[] {
  if (value === undefined || value === null) throw missingParameter('scopes');
  if (!Array.isArray(value) || value.length === 0) {
    throw invalidParameter('scopes', 'must be a non-empty list of scopes');
  }
  const unknown = value.find((scope) => !isApiScope(scope));
  if (unknown !== undefined) {
    throw invalidParameter('scopes', `unknown scope ${JSON.stringify(unknown)}`);
  }
  const scopes = [...new Set(value as ApiScope[])];
  if (scopes.includes('all') && scopes.length > 1) {
    throw invalidParameter('scopes', '"all" cannot be combined with other scopes');
  }
  return scopes;
}

function parseName(value: unknown): string {
  if (value === undefined || value === null) throw missingParameter('name');
  if (typeof value !== 'string') throw invalidParameter('name', 'must be 1-100 characters');
  const name = value.trim();
  if (name.length === 0 || name.length > 100) {
    throw invalidParameter('name', 'must be 1-100 characters');
  }
  return name;
}

/**
 * The keys a merchant manages itself (REST `/v1/api_keys`, GraphQL `apiKeys`): create one
 * (its secret shown once), list them, revoke one. Creation and revocation are recorded in the
 * audit log, with the key that did it as the actor.
 */
export class ApiKeyService {
  constructor(
    private readonly clock: Clock,
    private readonly environment: KeyEnvironment,
    private readonly auditLog: AuditLogService,
  ) {}

  async create(
    em: EntityManager,
    merchantId: string,
    actorKeyId: string,
    input: CreateApiKeyInput,
  ): Promise<{ key: ApiKeyView; secret: string }> {
    const name = parseName(input.name);
    const scopes = parseScopes(input.scopes);
    const allowedIps = parseAllowedIps(input.allowedIps);
    const prefix = (scopes[0] === 'all' ? KEY_PREFIX : RESTRICTED_KEY_PREFIX)[this.environment];
    const secret = newSecret(prefix);
    const now = this.clock.now();
    return em.transactional(async (tx) => {
      // The merchant's row is the lock the limit is counted under: two creations at once
      // count one after the other.
      await executeInTransaction(tx, 'select id from merchants where id = ? for update', [
        merchantId,
      ]);
      const [{ live }] = await executeInTransaction<{ live: string }>(
        tx,
        'select count(*) as live from api_keys where merchant_id = ? and revoked_at is null',
        [merchantId],
      );
      if (Number(live) >= MAX_LIVE_KEYS) {
        throw new DomainError(
          ErrorCode.LimitExceeded,
          `At most ${MAX_LIVE_KEYS} unrevoked API keys per merchant; revoke one first`,
        );
      }
      const [row] = await executeInTransaction<KeyRow>(
        tx,
        `insert into api_keys (id, merchant_id, key_hash, key_prefix, environment, created_at,
                               name, scopes, allowed_ips)
         values (?, ?, ?, ?, ?, ?, ?, ${TEXT_ARRAY},
                 case when ?::jsonb is null then null else ${TEXT_ARRAY} end)
         returning ${COLUMNS}`,
        [
          newId('key', this.clock),
          merchantId,
          hashSecret(secret),
          secret.slice(0, prefix.length + 4),
          this.environment,
          now,
          name,
          textArray(scopes),
          allowedIps === null ? null : textArray(allowedIps),
          allowedIps === null ? null : textArray(allowedIps),
        ],
      );
      const key = toView(row);
      await this.auditLog.record(tx, {
        actor: `api_key:${actorKeyId}`,
        action: 'api_key.create',
        targetType: 'api_key',
        targetId: key.id,
        before: null,
        after: snapshot(key),
      });
      return { key, secret };
    });
  }

  /** Revokes at once (its sockets close through the revocation notice); again: the same key. */
  async revoke(
    em: EntityManager,
    merchantId: string,
    actorKeyId: string,
    keyId: string,
  ): Promise<ApiKeyView> {
    return em.transactional(async (tx) => {
      const [before] = await executeInTransaction<KeyRow>(
        tx,
        `select ${COLUMNS} from api_keys where id = ? and merchant_id = ? for update`,
        [keyId, merchantId],
      );
      // Unknown or another merchant's: 404 alike.
      if (!before) throw new DomainError(ErrorCode.NotFound, `No API key ${keyId}`);
      if (before.revoked_at !== null) return toView(before);
      const [after] = await executeInTransaction<KeyRow>(
        tx,
        `update api_keys set revoked_at = ? where id = ? returning ${COLUMNS}`,
        [this.clock.now(), keyId],
      );
      const key = toView(after);
      await this.auditLog.record(tx, {
        actor: `api_key:${actorKeyId}`,
        action: 'api_key.revoke',
        targetType: 'api_key',
        targetId: key.id,
        before: snapshot(toView(before)),
        after: snapshot(key),
      });
      return key;
    });
  }

  /** A REST page, newest first, revoked keys included. */
  async list(
    em: EntityManager,
    merchantId: string,
    page: { offset: number; limit: number },
  ): Promise<{ keys: ApiKeyView[]; total: number }> {
    const connection = em.getConnection();
    const [rows, [{ total }]] = await Promise.all([
      connection.execute<KeyRow[]>(
        `select ${COLUMNS} from api_keys where merchant_id = ?
          order by created_at desc, id desc limit ? offset ?`,
        [merchantId, page.limit, page.offset],
      ),
      connection.execute<Array<{ total: string }>>(
        'select count(*) as total from api_keys where merchant_id = ?',
        [merchantId],
      ),
    ]);
    return { keys: rows.map(toView), total: Number(total) };
  }

  /** A GraphQL page: the keys after `cursor`, newest first. */
  async listAfter(
    em: EntityManager,
    merchantId: string,
    cursor: Cursor | null,
    limit: number,
  ): Promise<{ keys: ApiKeyView[]; hasMore: boolean; total: number }> {
    const connection = em.getConnection();
    const [rows, [{ total }]] = await Promise.all([
      connection.execute<KeyRow[]>(
        `select ${COLUMNS} from api_keys where merchant_id = ?
            and (?::timestamptz is null or (created_at, id) < (?::timestamptz, ?))
          order by created_at desc, id desc limit ?`,
        [
          merchantId,
          cursor?.createdAt ?? null,
          cursor?.createdAt ?? null,
          cursor?.id ?? '',
          limit + 1,
        ],
      ),
      connection.execute<Array<{ total: string }>>(
        'select count(*) as total from api_keys where merchant_id = ?',
        [merchantId],
      ),
    ]);
    return {
      keys: rows.slice(0, limit).map(toView),
      hasMore: rows.length > limit,
      total: Number(total),
    };
  }
}
