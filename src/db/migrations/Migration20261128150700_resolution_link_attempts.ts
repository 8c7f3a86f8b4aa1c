import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 32, finding 6: a payer's choice through a resolution link needs the full account
 * number the payer paid from. `failed_attempts` counts the wrong account numbers sent through
 * each link; a deposit's links lock together once their sum reaches the limit
 * (src/domain/payer-account.ts). Links already sent start at 0 and from now on ask for the
 * account number like new ones. Nothing new is stored about the payer: the full account number
 * is already kept (`deposits.sender_account`, returns need it).
 */
export class Migration20261128150700_resolution_link_attempts extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table deposit_resolution_links
         add column failed_attempts integer not null default 0 check (failed_attempts >= 0);`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table deposit_resolution_links drop column failed_attempts;');
  }
}
