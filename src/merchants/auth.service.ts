import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { KeyEnvironment } from '../domain/key-environment';
import { hashSecret } from '../crypto/secret-hash';
import { KEY_PREFIX, RESTRICTED_KEY_PREFIX } from './merchant.service';
import { isApiScope, type ApiScope } from '../domain/api-scopes';
import { cachedAllowedIpMatcher } from '../domain/allowed-ips';
import type {
  ClientSecretPrincipal,
  Principal,
  SecretKeyPrincipal,
} from '../context/request-context';
import { forbidden } from '../context/read-scope';
import { clientSecretSql } from '../onramps/client-secret-reads';
import { merchantAllowedOriginsSql } from './merchant-sql';
import { ApiKeyCache, type ApiKeyRow } from './api-key-cache';
import { ApiKeyRevocations } from './api-key-revocations';
import type { NotificationHub } from '../db/notification-hub';

// The principal types live with the request context; callers of authenticate() find them here.
export type { ClientSecretPrincipal, Principal, SecretKeyPrincipal };
export { forbidden };

function unauthorized(message: string): DomainError {
  return new DomainError(ErrorCode.Unauthorized, message);
}

const BEARER = /^Bearer ([A-Za-z0-9_]{1,200})$/;
/** Secret keys (`sk_`) and restricted keys (`rk_`): one lookup, the row says what it may do. */
const API_KEY = /^[sr]k_(test|live)_[A-Za-z0-9]{20,100}$/;
const CLIENT_SECRET = /^oc_[A-Za-z0-9]{20,100}$/;

/** The merchant behind a secret key; a client secret used here is 403 forbidden. */
export function requireSecretKey(principal: Principal): SecretKeyPrincipal {
  if (principal.kind !== 'secret_key') throw forbidden();
  return principal;
}

/**
 * The key lookups run on every authenticated request, so they are plain SQL (the statements
 * MikroORM generates for the same lookups) rather than `em.findOne`, whose query building and
 * hydration cost several times the query itself.
 */
export const API_KEY_SQL =
  'select "a0"."id", "a0"."merchant_id", "a0"."environment", "a0"."revoked_at", ' +
  '"a0"."scopes", "a0"."allowed_ips" ' +
  'from "api_keys" as "a0" where "a0"."key_hash" = ? limit 1';

/** Live keys kept in memory per gateway at most (each entry a few hundred bytes). */
const KEY_CACHE_ENTRIES = 10_000;

/**
 * The principal of a key row (the auth lookup's, a dashboard session's key): its scopes, and
 * its allowed addresses as a matcher (cached per distinct list, not built per request).
 */
export function keyPrincipal(row: {
  id: string;
  merchant_id: string;
  scopes: string[];
  allowed_ips: string[] | null;
}): SecretKeyPrincipal {
  // The table's check allows only known scopes; an unknown one grants nothing.
  const scopes: ApiScope[] = row.scopes.filter(isApiScope);
  const principal: SecretKeyPrincipal = {
    kind: 'secret_key',
    merchantId: row.merchant_id,
    keyId: row.id,
    scopes,
  };
  if (row.allowed_ips !== null) principal.allowedIps = cachedAllowedIpMatcher(row.allowed_ips);
  return principal;
}

interface ClientSecretRow {
  id: string;
  merchant_id: string;
  client_secret_revoked_at: Date | string | null;
  closed_at: Date | string | null;
  allowed_origins: string[] | null;
}

/**
 * A client secret's onramp and its merchant's allowed browser origins, in one statement. Built
 * on first use: the onramps module imports this one, so at load time its index may not be
 * complete yet.
 */
let clientSecretLookup: string | undefined;
const clientSecretLookupSql = () =>
  (clientSecretLookup ??= clientSecretSql(
    `${merchantAllowedOriginsSql('"o0"."merchant_id"')} as "allowed_origins"`,
  ));

/**
 * Resolves an `Authorization` header to a principal. Missing, malformed, unknown, revoked and
 * wrong-environment keys are all 401 `unauthorized`; the message says which, never whose.
 */
export class AuthService {
  constructor(
    private readonly environment: KeyEnvironment,
    private readonly clock: Clock,
    /** How long a client secret keeps working after its onramp stops taking money. */
    private readonly clientSecretGraceSeconds: number,
    /** API_KEY_CACHE_TTL_MS; the cache stays off until `watchKeyRevocations` connects. */
    keyCacheTtlMs = 0,
  ) {
    this.keyCache = new ApiKeyCache({ ttlMs: keyCacheTtlMs, maxEntries: KEY_CACHE_ENTRIES });
  }

  readonly keyCache: ApiKeyCache;

  /**
   * Turns the key cache on for this process (the gateway): it serves lookups only while the
   * process's LISTEN connection (with revocations on it) is up. The returned watch is stopped
   * on shutdown.
   */
  async watchKeyRevocations(notifications: NotificationHub): Promise<ApiKeyRevocations> {
    const watch = new ApiKeyRevocations(this.keyCache, notifications);
    await watch.start();
    return watch;
  }

  async authenticate(em: EntityManager, header: string | undefined): Promise<Principal> {
    if (header === undefined || header === '') {
      throw unauthorized('Missing Authorization header; send "Authorization: Bearer <API key>"');
    }
    const match = BEARER.exec(header.trim());
    if (!match) throw unauthorized('Malformed Authorization header; expected "Bearer <API key>"');
    const token = match[1];
    if (CLIENT_SECRET.test(token)) return this.clientSecret(em, token);
    if (!API_KEY.test(token)) throw unauthorized('Malformed API key');
    if (
      !token.startsWith(KEY_PREFIX[this.environment]) &&
      !token.startsWith(RESTRICTED_KEY_PREFIX[this.environment])
    ) {
      throw unauthorized(
        `This is a ${this.environment} deployment; use a ${KEY_PREFIX[this.environment]} key`,
      );
    }
    const key = await this.apiKey(em, hashSecret(token));
    if (!key || key.environment !== this.environment) throw unauthorized('Unknown API key');
    if (key.revoked_at !== null) throw unauthorized('This API key has been revoked');
    return keyPrincipal(key);
  }

  /** The key's row: from the cache while it is on, else (and then into it) from the database. */
  private async apiKey(em: EntityManager, keyHash: string): Promise<ApiKeyRow | undefined> {
    const cached = this.keyCache.get(keyHash);
    if (cached) return cached;
    const since = this.keyCache.generation();
    const [key] = await em.execute<ApiKeyRow[]>(API_KEY_SQL, [keyHash]);
    if (key && key.environment === this.environment) this.keyCache.store(keyHash, key, since);
    return key;
  }

  private async clientSecret(em: EntityManager, token: string): Promise<ClientSecretPrincipal> {
    const [onramp] = await em.execute<ClientSecretRow[]>(clientSecretLookupSql(), [
      hashSecret(token),
    ]);
    if (!onramp) throw unauthorized('Unknown client secret');
    if (onramp.client_secret_revoked_at !== null) {
      throw unauthorized('This client secret has been revoked');
    }
    const principal: ClientSecretPrincipal = {
      kind: 'client_secret',
      merchantId: onramp.merchant_id,
      onrampId: onramp.id,
    };
    if (onramp.allowed_origins?.length) principal.allowedOrigins = onramp.allowed_origins;
    if (onramp.closed_at !== null) {
      const closedAt = new Date(onramp.closed_at).getTime();
      principal.expiresAt = new Date(closedAt + this.clientSecretGraceSeconds * 1000);
      if (principal.expiresAt.getTime() <= this.clock.now().getTime()) {
        throw unauthorized('This client secret expired: its onramp no longer takes payments');
      }
    }
    return principal;
  }
}
