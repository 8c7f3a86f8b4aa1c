import { Migration } from '@mikro-orm/migrations';

/**
 * Keys the merchant manages: a name, scopes (`{all}`: a secret key, as every existing key
 * stays) and the addresses it may be used from (null: any). The checks repeat the API's rules
 * so a row written around it cannot grant more than the API would: `all` stands alone, the
 * scopes are the known ones, at most 50 address entries. A partial index counts a merchant's
 * live keys for the 100-key limit.
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
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists api_keys_live_per_merchant_idx;');
    this.addSql(
      'alter table api_keys drop column allowed_ips, drop column scopes, drop column name;',
    );
  }
}
