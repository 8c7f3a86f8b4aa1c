import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 37, tracing: a deposit keeps the W3C `traceparent` of the request that recorded it
 * (the bank notification or the sandbox call), and its payout a copy, so the job runner's
 * spans for its settlement, FX order, payout and webhooks join that request's trace. Null
 * when tracing is off (the default) or the deposit was not recorded in a traced request (a
 * bank sweep, a sandbox auto-deposit). Nothing reads it but tracing; no index.
 */
export class Migration20261129140100_trace_context extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `alter table deposits add column trace_parent text
         check (trace_parent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');`,
    );
    this.addSql(
      `alter table payouts add column trace_parent text
         check (trace_parent ~ '^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$');`,
    );
  }

  override async down(): Promise<void> {
    this.addSql('alter table payouts drop column trace_parent;');
    this.addSql('alter table deposits drop column trace_parent;');
  }
}
