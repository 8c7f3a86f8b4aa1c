import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Clock } from '../clock';
import { DomainError, ErrorCode } from '../domain/errors';
import { keyPrincipal, type AuthService, type SecretKeyPrincipal } from './auth.service';
import { hashSecret } from '../crypto/secret-hash';

export interface DashboardSession {
  /** The cookie value: shown once, stored only as a hash. */
  token: string;
  csrfToken: string;
  merchant: { id: string; name: string };
  principal: SecretKeyPrincipal;
  expiresAt: Date;
}

const TOKEN = /^[A-Za-z0-9_-]{43}$/;
const unauthorized = (message: string) => new DomainError(ErrorCode.Unauthorized, message);

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * The dashboard's sign-in: a secret key is exchanged for a session (an HttpOnly cookie plus a
 * CSRF token the page keeps in memory). The session acts with the key it was opened with, so
 * revoking the key ends it at once. The cookie alone grants nothing: every use must also show
 * the CSRF token, which another site cannot read.
 */
export class DashboardSessionService {
  constructor(
    private readonly clock: Clock,
    private readonly auth: AuthService,
    private readonly lifetimeSeconds: number,
  ) {}

  /** `admit`: the caller's last word on the key before a session exists (its client address). */
  async open(
    em: EntityManager,
    apiKey: unknown,
    admit: (principal: SecretKeyPrincipal) => void = () => undefined,
  ): Promise<DashboardSession> {
    if (typeof apiKey !== 'string' || apiKey.trim() === '') {
      throw unauthorized('Enter an API key (sk_... or a restricted rk_...)');
    }
    const principal = await this.auth.authenticate(em, `Bearer ${apiKey.trim()}`);
    if (principal.kind !== 'secret_key') {
      throw unauthorized('Sign in with a secret API key, not a client secret');
    }
    admit(principal);
    const token = randomBytes(32).toString('base64url');
    const csrfToken = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + this.lifetimeSeconds * 1000);
    await em.getConnection().execute(
      `insert into dashboard_sessions
         (token_hash, csrf_token, merchant_id, api_key_id, created_at, expires_at)
       values (?, ?, ?, ?, ?, ?)`,
      [hashSecret(token), csrfToken, principal.merchantId, principal.keyId, now, expiresAt],
    );
    return {
      token,
      csrfToken,
      principal,
      expiresAt,
      merchant: await this.merchantOf(em, principal.merchantId),
    };
  }

  /** The live session behind a cookie, or 401. `csrfToken` null: the caller only reads it back. */
  async resume(
    em: EntityManager,
    token: string | undefined,
    csrfToken: string | null,
  ): Promise<Omit<DashboardSession, 'token'>> {
    if (!token || !TOKEN.test(token)) throw unauthorized('Not signed in');
    const rows = await em.getConnection().execute<
      Array<{
        csrf_token: string;
        merchant_id: string;
        api_key_id: string;
        expires_at: string;
        name: string;
        scopes: string[];
        allowed_ips: string[] | null;
      }>
    >(
      // The session acts with its key's scopes and allowed addresses, read with it.
      `select s.csrf_token, s.merchant_id, s.api_key_id, s.expires_at, m.name,
              k.scopes, k.allowed_ips
         from dashboard_sessions s
         join api_keys k on k.id = s.api_key_id
         join merchants m on m.id = s.merchant_id
        where s.token_hash = ? and s.signed_out_at is null and s.expires_at > ?
          and k.revoked_at is null`,
      [hashSecret(token), this.clock.now()],
    );
    const row = rows[0];
    if (!row) throw unauthorized('The dashboard session has ended; sign in again');
    if (csrfToken !== null && !sameText(csrfToken, row.csrf_token)) {
      throw unauthorized('Missing or wrong X-CSRF-Token for the dashboard session');
    }
    return {
      csrfToken: row.csrf_token,
      merchant: { id: row.merchant_id, name: row.name },
      principal: keyPrincipal({ ...row, id: row.api_key_id }),
      expiresAt: new Date(row.expires_at),
    };
  }

  async close(em: EntityManager, token: string | undefined, csrfToken: string): Promise<void> {
    await this.resume(em, token, csrfToken);
    await em
      .getConnection()
      .execute('update dashboard_sessions set signed_out_at = ? where token_hash = ?', [
        this.clock.now(),
        hashSecret(token!),
      ]);
  }

  /** Deletes sessions that ended (expired or signed out) more than a day ago. */
  async prune(em: EntityManager): Promise<number> {
    const cutoff = new Date(this.clock.now().getTime() - 24 * 60 * 60 * 1000);
    const rows = await em.getConnection().execute<Array<{ token_hash: string }>>(
      `delete from dashboard_sessions
        where expires_at < ? or signed_out_at < ?
        returning token_hash`,
      [cutoff, cutoff],
    );
    return rows.length;
  }

  private async merchantOf(em: EntityManager, merchantId: string) {
    const [row] = await em
      .getConnection()
      .execute<Array<{ id: string; name: string }>>('select id, name from merchants where id = ?', [
        merchantId,
      ]);
    return { id: row.id, name: row.name };
  }
}
