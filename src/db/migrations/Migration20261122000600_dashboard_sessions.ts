import { Migration } from '@mikro-orm/migrations';

/**
 * Dashboard sign-in sessions: a secret key exchanged for an HttpOnly cookie. Only hashes of the
 * session token are stored; the CSRF token travels in the page, never in a cookie. A session
 * dies with its key (revoked keys are checked on every use), on sign-out, or when it expires.
 */
export class Migration20261122000600_dashboard_sessions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table dashboard_sessions (
        token_hash text primary key,
        csrf_token text not null,
        merchant_id text not null references merchants(id),
        api_key_id text not null references api_keys(id),
        created_at timestamptz not null,
        expires_at timestamptz not null,
        signed_out_at timestamptz
      );`);
    this.addSql('create index dashboard_sessions_expiry_idx on dashboard_sessions (expires_at);');
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists dashboard_sessions;');
  }
}
