import { Migration } from '@mikro-orm/migrations';

/**
 * Gateways keep the current rates in memory (src/rates/rate-memory.ts) and read them again on
 * `pg_notify('rates_published', '')`, sent by a statement-level trigger whenever rates are
 * written, whoever writes them (the job runner's publication, an operator, a test), delivered
 * at commit only. Rates are otherwise immutable (`rates_immutable`), so inserts (and a
 * truncate) are all there is to hear about.
 */
export class Migration20261125120200_rates_published extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function rates_published_notify() returns trigger language plpgsql as $$
      begin
        perform pg_notify('rates_published', '');
        return null;
      end $$;`);
    this.addSql(`
      create trigger rates_published_notify
        after insert or truncate on rates for each statement
        execute function rates_published_notify();`);
  }

  override async down(): Promise<void> {
    this.addSql('drop trigger if exists rates_published_notify on rates;');
    this.addSql('drop function if exists rates_published_notify();');
  }
}
