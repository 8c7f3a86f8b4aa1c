import { Migration } from '@mikro-orm/migrations';

/**
 * Reorgs (issue 35): a booked payout records the hash of the block that held its transaction,
 * so the block follower can tell when that block stops being canonical; `reorged_at` marks a
 * payout moved back to SIGNED by a reorg after it was booked (its ledger entry and its deposit's
 * or withdrawal's move stand: booking it again writes neither twice).
 */
export class Migration20261129120100_payout_reorgs extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table payouts
        add column block_hash text,
        add column reorged_at timestamptz;`);
    // The follower's look-up of payouts booked from recent blocks of a chain.
    this.addSql(`
      create index payouts_booked_block_idx on payouts (chain, block_number)
        where status in ('CONFIRMED', 'FAILED');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists payouts_booked_block_idx;');
    this.addSql('alter table payouts drop column block_hash, drop column reorged_at;');
  }
}
