import { Migration } from '@mikro-orm/migrations';

/**
 * `merchants.allowed_origins` (issue 32, docs/api.md "Browsers"): the browser origins a
 * merchant's frontend may use client secrets from, `https://host[:port]` each (checked by
 * `parseAllowedOrigins`; the sandbox allows `http://localhost` on any port besides). Empty:
 * none. The bound repeats the service's limit so no other writer can exceed it.
 */
export class Migration20261128150200_allowed_origins extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table merchants
      add column allowed_origins text[] not null default '{}'
        check (cardinality(allowed_origins) <= 20);`);
  }

  override async down(): Promise<void> {
    this.addSql('alter table merchants drop column allowed_origins;');
  }
}
