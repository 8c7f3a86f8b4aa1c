import { Migration } from '@mikro-orm/migrations';

/**
 * `ledger.csv` reads a merchant's postings in posting order, a chunk at a time: the account
 * index gains the posting id, so each chunk is an ordered index scan that stops at its limit
 * instead of a sort of every posting the account has. It replaces the account-only index,
 * which the balance sums used and which this one serves as well (no extra index to write).
 */
export class Migration20261125100400_report_indexes extends Migration {
  override async up(): Promise<void> {
    this.addSql('create index ledger_postings_account_id_idx on ledger_postings (account_id, id);');
    this.addSql('drop index if exists ledger_postings_account_idx;');
  }

  override async down(): Promise<void> {
    this.addSql('create index ledger_postings_account_idx on ledger_postings (account_id);');
    this.addSql('drop index if exists ledger_postings_account_id_idx;');
  }
}
