import { Migration } from '@mikro-orm/migrations';

/**
 * Every gateway closes the websockets of a credential that ends, whichever process ended it:
 * triggers send `pg_notify('onramp_credential_revoked', '{"kind":...,"id":...}')` when an API
 * key is revoked (or deleted) and when a dashboard session is signed out (or deleted while it
 * was still live), so the CLI, the admin API and anything later are all covered. NOTIFY is
 * delivered at commit, and only if the transaction commits. A session is identified by its
 * token hash (its primary key); the token itself is never in the database.
 */
export class Migration20261124000800_credential_revocations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function notify_credential_revoked(kind text, id text) returns void
      language sql as $$
        select pg_notify('onramp_credential_revoked',
          '{"kind":' || to_json(kind)::text || ',"id":' || to_json(id)::text || '}')
      $$;`);
    this.addSql(`
      create function api_key_revoked_notify() returns trigger language plpgsql as $$
      begin
        perform notify_credential_revoked('api_key',
          case when tg_op = 'DELETE' then old.id else new.id end);
        return null;
      end $$;`);
    this.addSql(`
      create trigger api_keys_revoked_notify
        after update of revoked_at on api_keys for each row
        when (old.revoked_at is null and new.revoked_at is not null)
        execute function api_key_revoked_notify();`);
    this.addSql(`
      create trigger api_keys_deleted_notify
        after delete on api_keys for each row
        when (old.revoked_at is null)
        execute function api_key_revoked_notify();`);
    this.addSql(`
      create function dashboard_session_ended_notify() returns trigger language plpgsql as $$
      begin
        perform notify_credential_revoked('dashboard_session',
          case when tg_op = 'DELETE' then old.token_hash else new.token_hash end);
        return null;
      end $$;`);
    this.addSql(`
      create trigger dashboard_sessions_signed_out_notify
        after update of signed_out_at on dashboard_sessions for each row
        when (old.signed_out_at is null and new.signed_out_at is not null)
        execute function dashboard_session_ended_notify();`);
    // Pruning deletes sessions that ended long ago: only a live one's deletion is news (the
    // database's clock here only spares pruning a notice per row; gateways check expiry by theirs).
    this.addSql(`
      create trigger dashboard_sessions_deleted_notify
        after delete on dashboard_sessions for each row
        when (old.signed_out_at is null and old.expires_at > now())
        execute function dashboard_session_ended_notify();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists dashboard_sessions_deleted_notify on dashboard_sessions;');
    this.addSql(
      'drop trigger if exists dashboard_sessions_signed_out_notify on dashboard_sessions;',
    );
    this.addSql('drop function if exists dashboard_session_ended_notify();');
    this.addSql('drop trigger if exists api_keys_deleted_notify on api_keys;');
    this.addSql('drop trigger if exists api_keys_revoked_notify on api_keys;');
    this.addSql('drop function if exists api_key_revoked_notify();');
    this.addSql('drop function if exists notify_credential_revoked(text, text);');
  }
}
