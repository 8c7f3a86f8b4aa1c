import { Migration } from '@mikro-orm/migrations';

/**
 * Keys the merchant manages: a name, scopes (`{all}`: a secret key, as every existing key
 * stays) and the addresses it may be used from (null: any). The checks repeat the API's rules
 * so a row written around it cannot grant more than the API would: `all` stands alone, the
 * scopes are the known ones, at most 50 address entries. A partial index counts a merchant's
 * live keys for the 100-key limit.
 *
 * A key created or revoked writes `api_key.created` / `api_key.revoked` to the outbox, the way
 * withdrawal events are written (a row trigger), so the merchant's webhooks hear of a key made
 * with a leaked one whichever process made it (API, CLI, admin API). The snapshot is the key as
 * the API shows it, never its hash.
 */
export class Migration20261125100100_api_key_scopes extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table api_keys
        add column name text check (length(name) between 1 and 100),
        add column scopes text[] not null default '{all}'
          check (cardinality(scopes) >= 1
            and scopes <@ array['all', 'rates:read', 'onramps:read', 'onramps:write',
                                'deposits:read', 'balance:read', 'withdrawals:write',
                                'webhooks:write', 'sandbox:write']
            and (scopes = '{all}' or not ('all' = any(scopes)))),
        add column allowed_ips text[]
          check (allowed_ips is null or cardinality(allowed_ips) between 1 and 50);`);
    this.addSql(`
      create index api_keys_live_per_merchant_idx on api_keys (merchant_id)
        where revoked_at is null;`);
    this.addSql(`
      create function api_key_event() returns trigger language plpgsql as $$
      declare
        kind text := case when tg_op = 'INSERT' then 'api_key.created' else 'api_key.revoked' end;
        utc text := 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"';
      begin
        insert into events (id, kind, merchant_id, status, snapshot, created_at)
        values ('evt_' || replace(gen_random_uuid()::text, '-', ''), kind, new.merchant_id,
                case when new.revoked_at is null then 'ACTIVE' else 'REVOKED' end,
                jsonb_build_object(
                  'id', new.id, 'name', new.name, 'scopes', to_jsonb(new.scopes),
                  'allowed_ips', to_jsonb(new.allowed_ips), 'key_prefix', new.key_prefix,
                  'created_at', to_char(new.created_at at time zone 'UTC', utc),
                  'revoked_at', to_char(new.revoked_at at time zone 'UTC', utc)),
                coalesce(new.revoked_at, new.created_at));
        return null;
      end $$;`);
    this.addSql(`
      create trigger api_keys_created_event after insert on api_keys
        for each row execute function api_key_event();`);
    this.addSql(`
      create trigger api_keys_revoked_event after update of revoked_at on api_keys
        for each row when (old.revoked_at is null and new.revoked_at is not null)
        execute function api_key_event();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists api_keys_revoked_event on api_keys;');
    this.addSql('drop trigger if exists api_keys_created_event on api_keys;');
    this.addSql('drop function if exists api_key_event();');
    this.addSql('drop index if exists api_keys_live_per_merchant_idx;');
    this.addSql(
      'alter table api_keys drop column allowed_ips, drop column scopes, drop column name;',
    );
  }
}
