import { Migration } from '@mikro-orm/migrations';

/**
 * Payer resolution links (issue 22, docs/api.md "Payer resolution links"):
 * - `deposit_resolution_links`: one row per link a merchant asked for. The URL's token is
 *   signed (src/domain/resolution-token.ts), so the row only records what the signature cannot:
 *   that a newer link superseded it, or that the payer used it and what he chose.
 * - `merchants.payer_resolution`: `{allow_settle}`, null meaning the default (settling a
 *   flagged deposit at today's rate is not offered to the payer).
 */
export class Migration20261125120000_resolution_links extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table deposit_resolution_links (
      id text primary key,
      deposit_id text not null references deposits (id),
      merchant_id text not null references merchants (id),
      created_at timestamptz not null,
      expires_at timestamptz not null,
      superseded_at timestamptz,
      used_at timestamptz,
      choice text check (choice in ('settle', 'return')),
      check ((used_at is null) = (choice is null))
    );`);
    // Superseding a deposit's older links is one update by deposit.
    this.addSql(
      'create index deposit_resolution_links_deposit on deposit_resolution_links (deposit_id);',
    );
    this.addSql('alter table merchants add column payer_resolution jsonb;');
  }

  override async down(): Promise<void> {
    this.addSql('alter table merchants drop column payer_resolution;');
    this.addSql('drop table deposit_resolution_links;');
  }
}
