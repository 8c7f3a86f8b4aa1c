import { Migration } from '@mikro-orm/migrations';

const MOVES: Array<[string, string]> = [
  ['RETURNING', 'REVERSED'],
  ['RETURNING', 'FLAGGED'],
  ['RETURNED', 'FLAGGED'],
];

/** v0.1's unnamed check: SETTLED and REVERSED deposits were converted and settled. */
const OLD_SETTLED_CHECK =
  "check (status not in ('SETTLED', 'REVERSED') or (settled_at is not null and amount_asset is not null and fx_executed_at is not null))";

/**
 * A bank reversal during a return (docs/api.md, "Returns to the payer"): the moves it makes,
 * a REVERSED deposit that was never converted (its return cancelled by the reversal),
 * CANCELLED for an attempt the reversal stopped before the runner sent it, and one
 * `deposit_paid_twice` transaction at most per deposit (a return the bank paid after it took
 * the transfer back), as `deposit_returned` already is.
 */
export class Migration20261128150300_reversal_during_return extends Migration {
  override async up(): Promise<void> {
    this.addSql(
      `insert into deposit_transitions (from_status, to_status) values ${MOVES.map(
        ([from, to]) => `('${from}', '${to}')`,
      ).join(', ')};`,
    );
    this.addSql(`
      do $$
      declare name text;
      begin
        select conname into strict name from pg_constraint
         where conrelid = 'deposits'::regclass and contype = 'c'
           and pg_get_constraintdef(oid) like '%SETTLED%REVERSED%settled_at IS NOT NULL%';
        execute format('alter table deposits drop constraint %I', name);
      end $$;`);
    this.addSql(`
      alter table deposits add constraint deposits_settled_amounts_check check (
        status not in ('SETTLED', 'REVERSED')
        or (settled_at is not null and amount_asset is not null and fx_executed_at is not null)
        or (status = 'REVERSED' and settled_at is null and fx_executed_at is null
            and reversed_at is not null));`);
    this.addSql('alter table deposit_returns drop constraint deposit_returns_status_check;');
    this.addSql(`
      alter table deposit_returns add constraint deposit_returns_status_check
        check (status in ('PENDING', 'SENT', 'COMPLETED', 'FAILED', 'CANCELLED'));`);
    this.addSql(`
      create unique index ledger_transactions_paid_twice_once on ledger_transactions (deposit_id)
        where kind = 'deposit_paid_twice';`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists ledger_transactions_paid_twice_once;');
    this.addSql('alter table deposits drop constraint deposits_settled_amounts_check;');
    this.addSql(`alter table deposits add ${OLD_SETTLED_CHECK};`);
    this.addSql('alter table deposit_returns drop constraint deposit_returns_status_check;');
    this.addSql(`
      alter table deposit_returns add constraint deposit_returns_status_check
        check (status in ('PENDING', 'SENT', 'COMPLETED', 'FAILED'));`);
    this.addSql(
      `delete from deposit_transitions where (from_status, to_status) in (${MOVES.map(
        ([from, to]) => `('${from}', '${to}')`,
      ).join(', ')});`,
    );
  }
}
