import { Migration } from '@mikro-orm/migrations';
import { MOVED, writeDepositEvents } from './Migration20261125000400_lean_events';
import { OWED_PER_ENDPOINT } from './Migration20261125100200_webhook_endpoints';

const RETURN_MOVES: Array<[string, string]> = [
  ['FLAGGED', 'RETURNING'],
  ['RETURNING', 'RETURNED'],
  ['RETURNING', 'RETURN_FAILED'],
  ['RETURN_FAILED', 'RETURNING'],
];

const OLD_STATUSES = `'PENDING_FX', 'PENDING_WITHDRAWAL', 'SETTLED', 'FAILED', 'FLAGGED', 'REVERSED'`;
const NEW_STATUSES = `${OLD_STATUSES}, 'RETURNING', 'RETURNED', 'RETURN_FAILED'`;

const LAST_KIND = "when 'REVERSED' then 'deposit.reversed'";
/** The moved-deposits statement with the three new statuses' event kinds. */
function movedWithReturns(): string {
  if (!MOVED.includes(LAST_KIND)) throw new Error('the deposit event kinds changed shape');
  return MOVED.replace(
    LAST_KIND,
    `${LAST_KIND}
          when 'RETURNING' then 'deposit.returning'
          when 'RETURNED' then 'deposit.returned'
          when 'RETURN_FAILED' then 'deposit.return_failed'`,
  );
}

function movedFunction(moved: string): string {
  return `
      create or replace function deposits_moved_events() returns trigger language plpgsql as $$
      declare
        deposit_notices bigint;
        webhook_notices bigint;
      begin
        ${writeDepositEvents(moved, OWED_PER_ENDPOINT)}
        return null;
      end $$;`;
}

/**
 * Returns to the payer: the statuses RETURNING, RETURNED and RETURN_FAILED, their moves and
 * event kinds, and `deposit_returns`, one row per attempt to send a FLAGGED deposit's NGN back
 * to the sender's account. The row is written (status PENDING) in the transaction that moves
 * the deposit to RETURNING; the runner calls the bank after commit with the row's id as the
 * bank's idempotency reference and records the outcome. At most one attempt per deposit is
 * open at a time (the partial unique index), so two concurrent returns make one transfer.
 */
export class Migration20261125110200_deposit_returns extends Migration {
  override async up(): Promise<void> {
    this.addSql('alter table deposits drop constraint deposits_status_check;');
    this.addSql(
      `alter table deposits add constraint deposits_status_check check (status in (${NEW_STATUSES}));`,
    );
    this.addSql(
      `insert into deposit_transitions (from_status, to_status) values ${RETURN_MOVES.map(
        ([from, to]) => `('${from}', '${to}')`,
      ).join(', ')};`,
    );
    this.addSql(movedFunction(movedWithReturns()));
    this.addSql(`
      create table deposit_returns (
        id text primary key,
        deposit_id text not null references deposits(id),
        merchant_id text not null,
        status text not null check (status in ('PENDING', 'SENT', 'COMPLETED', 'FAILED')),
        amount_ngn numeric(20, 2) not null check (amount_ngn > 0),
        fee_ngn numeric(20, 2) not null check (fee_ngn >= 0 and fee_ngn <= amount_ngn),
        to_account text not null,
        bank_code text,
        name text,
        reason text not null,
        actor text not null,
        failure_reason text,
        attempts integer not null default 0,
        next_attempt_at timestamptz not null,
        created_at timestamptz not null,
        updated_at timestamptz not null
      );`);
    this.addSql(
      'alter table sandbox_scenarios add column return_failure boolean not null default false;',
    );
    this.addSql(`
      create unique index deposit_returns_one_open_idx on deposit_returns (deposit_id)
        where status in ('PENDING', 'SENT');`);
    // RETURNED is terminal: its NGN leaves the ledger once, whatever retries or crashes do.
    this.addSql(`
      create unique index ledger_transactions_returned_once on ledger_transactions (deposit_id)
        where kind = 'deposit_returned';`);
    this.addSql(`
      create index deposit_returns_due_idx on deposit_returns (next_attempt_at)
        where status in ('PENDING', 'SENT');`);
  }

  override async down(): Promise<void> {
    this.addSql('drop index if exists ledger_transactions_returned_once;');
    this.addSql('drop table if exists deposit_returns;');
    this.addSql('alter table sandbox_scenarios drop column if exists return_failure;');
    this.addSql(movedFunction(MOVED));
    this.addSql(
      `delete from deposit_transitions where to_status in ('RETURNING', 'RETURNED', 'RETURN_FAILED');`,
    );
    this.addSql('alter table deposits drop constraint deposits_status_check;');
    this.addSql(
      `alter table deposits add constraint deposits_status_check check (status in (${OLD_STATUSES}));`,
    );
  }
}
