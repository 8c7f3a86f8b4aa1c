import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 36: the sanctions list in force (API.md "Losses, reserves and sanctions"), in the
 * database so every gateway and runner screens against the same list the moment an update
 * commits. `sanctions_list` is one row (`id = 1`) describing the list; `sanctioned_addresses`
 * holds its addresses in lower case. A replacement rewrites both in one transaction, so a
 * reader sees the old list or the new one, never a mix. History is the audit log's.
 */
export class Migration20261129110100_sanctions extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table sanctions_list (
        id smallint primary key default 1 check (id = 1),
        list_date date not null,
        address_count integer not null check (address_count >= 0),
        content_sha256 text not null check (content_sha256 ~ '^[0-9a-f]{64}$'),
        origin text not null check (origin in ('startup', 'operator')),
        description text not null,
        installed_at timestamptz not null,
        installed_by text not null
      );`);
    this.addSql(`create table sanctioned_addresses (
        address text primary key check (address ~ '^0x[0-9a-f]{40}$')
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table sanctioned_addresses;');
    this.addSql('drop table sanctions_list;');
  }
}
