import { Migration } from '@mikro-orm/migrations';

/**
 * The outbox's foreign keys on `events.merchant_id` and `events.deposit_id` cost two lookups per
 * event (four a deposit), and guard nothing another rule does not: events are written only by
 * the status triggers, from the very row that changed, and a deposit (or merchant) with events
 * can never be deleted anyway (every deposit has its `deposit_received` ledger transaction,
 * which references it; the deposit references its merchant). The ledger check's
 * `latest_event_matches_status` reads every deposit's events against it. The withdrawal key
 * stays (its events are rare and it is checked only when set).
 */
export class Migration20261125000500_events_without_foreign_keys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table events
        drop constraint if exists events_merchant_id_fkey,
        drop constraint if exists events_deposit_id_fkey;`);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table events
        add constraint events_merchant_id_fkey foreign key (merchant_id) references merchants(id),
        add constraint events_deposit_id_fkey foreign key (deposit_id) references deposits(id);`);
  }
}
