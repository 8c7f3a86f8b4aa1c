import { Migration } from '@mikro-orm/migrations';

/**
 * Widening settings wait (issue 32, finding 1): `merchants.pending_settings` holds the changes
 * that take effect later, a jsonb array of `{field, value, effective_at, requested_at,
 * requested_by}`, null when none, so the row the service already locks carries them and every
 * read of the merchant sees them. The partial index keeps the job's scan to the few merchants
 * that have one.
 */
export class Migration20261128150100_settings_pending extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table merchants add column pending_settings jsonb;');
    this.addSql(`create index merchants_pending_settings_idx on merchants (id)
      where pending_settings is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index merchants_pending_settings_idx;');
    this.addSql('alter table merchants drop column pending_settings;');
  }
}
