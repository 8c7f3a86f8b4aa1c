import { Migration } from '@mikro-orm/migrations';

/**
 * Settlement in batches: a runner claims PENDING_FX deposits (`settle_claim`, its run's id)
 * until `settle_claim_expires_at`, places their FX orders outside any transaction, then applies
 * the fills only to rows it still holds. A claim past its expiry is taken by the next drain
 * (a runner that died between placing and applying). Neither column is part of a deposit's
 * status, so claiming fires no outbox trigger.
 */
export class Migration20261125000100_settlement_batches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table deposits
        add column settle_claim text,
        add column settle_claim_expires_at timestamptz;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table deposits
        drop column if exists settle_claim,
        drop column if exists settle_claim_expires_at;`);
  }
}
