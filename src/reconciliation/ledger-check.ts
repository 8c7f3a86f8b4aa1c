import type { LedgerCheck } from './ledger-check-type';
import { DEPOSIT_POSTING_CHECKS } from './checks-deposit-postings';
import { DEPOSIT_RETURN_CHECKS } from './checks-deposit-returns';
import { DEPOSIT_TOTAL_CHECKS } from './checks-deposit-totals';
import { EVENT_CHECKS } from './checks-events';
import { LEDGER_OWN_CHECKS } from './checks-ledger';
import { PAYOUT_CHECKS } from './checks-payouts';
import { RESERVE_CHECKS } from './checks-reserves';
import { lit } from '../ledger';

/**
 * Reconciles the ledger with the deposits it books, in SQL only, so it runs wherever a query
 * function does: the operator CLI (`onramp ledger check`, through MikroORM), the test suites
 * (a plain `pg` Client after every test file), or psql by hand.
 *
 * Every check is one `select` answering a row per violation; all of them run as ONE statement
 * (`union all`), so they read one snapshot even in READ COMMITTED and against a live system:
 * a transfer being booked while the check runs is either wholly seen or not at all. The SQL
 * takes no parameters and has no question mark in it, so MikroORM's `?` placeholder
 * expansion and pg's `$1` numbering both leave it alone. Amounts compare as `numeric`.
 */

export interface LedgerViolation {
  invariant: string;
  detail: string;
}

export type LedgerQuery = (sql: string, params?: unknown[]) => Promise<any[]>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Violations reported per check; the rest are summarised in one more row. */
export type { LedgerCheck };

export const MAX_DETAILS_PER_CHECK = 100;

/** Every check, in the order reported. */
export const LEDGER_CHECKS: readonly LedgerCheck[] = [
  ...LEDGER_OWN_CHECKS,
  ...DEPOSIT_POSTING_CHECKS,
  ...DEPOSIT_TOTAL_CHECKS,
  ...DEPOSIT_RETURN_CHECKS,
  ...PAYOUT_CHECKS,
  ...RESERVE_CHECKS,
  ...EVENT_CHECKS,
];

/** The one statement that runs every check: (invariant, detail, total) rows. */
export function ledgerCheckSql(checks: readonly LedgerCheck[] = LEDGER_CHECKS): string {
  return checks
    .map(
      (check, i) => `
select ${i} as ord, ${lit(check.name)}::text as invariant, c.detail::text as detail, c.total::int as total
  from (select v.detail, row_number() over () as n, count(*) over () as total
          from (${check.sql}
               ) v) c
 where c.n <= ${MAX_DETAILS_PER_CHECK}`,
    )
    .join('\nunion all')
    .concat('\norder by ord, detail');
}

interface CheckRow {
  invariant: string;
  detail: string;
  total: number | string;
}

/** Turns the statement's rows into violations, summarising checks cut at the cap. */
export function violationsFrom(rows: readonly CheckRow[]): LedgerViolation[] {
  const out: LedgerViolation[] = [];
  const seen = new Map<string, number>();
  for (const row of rows) {
    out.push({ invariant: row.invariant, detail: row.detail });
    seen.set(row.invariant, Number(row.total));
  }
  for (const [invariant, total] of seen) {
    if (total > MAX_DETAILS_PER_CHECK) {
      out.push({
        invariant,
        detail: `... and ${total - MAX_DETAILS_PER_CHECK} more violations of ${invariant}`,
      });
    }
  }
  return out;
}

/** Names of every check `checkLedger` runs, in order. */
export const LEDGER_CHECK_NAMES: readonly string[] = LEDGER_CHECKS.map((c) => c.name);

/** Runs every check in one statement (one snapshot) and returns what does not hold. */
export async function checkLedger(query: LedgerQuery): Promise<LedgerViolation[]> {
  return violationsFrom((await query(ledgerCheckSql())) as CheckRow[]);
}
