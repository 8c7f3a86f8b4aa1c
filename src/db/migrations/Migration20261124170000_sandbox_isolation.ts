import { Migration } from '@mikro-orm/migrations';

/**
 * Sandbox fault scenarios are scoped to the merchant that set them. `rate_source_down_since`:
 * when the merchant took its rate source down (its quotes stop at the rates published before
 * then). `deployment_switches`: the operator's deployment-wide switches (the rate source down
 * for every merchant), which no merchant credential can reach.
 */
export class Migration20261124170000_sandbox_isolation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table sandbox_scenarios add column rate_source_down_since timestamptz;`);
    this.addSql(`
      update sandbox_scenarios set rate_source_down_since = updated_at where rate_source_down;`);
    this.addSql(`
      create table deployment_switches (
        name text primary key,
        enabled boolean not null,
        updated_at timestamptz not null
      );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table if exists deployment_switches;');
    this.addSql('alter table sandbox_scenarios drop column if exists rate_source_down_since;');
  }
}
