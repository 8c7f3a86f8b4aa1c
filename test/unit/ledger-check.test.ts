import {
  checkLedger,
  LEDGER_CHECK_NAMES,
  LEDGER_CHECKS,
  ledgerCheckSql,
  MAX_DETAILS_PER_CHECK,
  violationsFrom,
} from '../../src/reconciliation/ledger-check';
import { FLOORED_OPERATOR_ACCOUNTS } from '../../src/reconciliation/checks-ledger';
import { OPERATOR, OPERATOR_ACCOUNTS_WITHOUT_FLOOR } from '../../src/domain/ledger';

describe('ledger check assembly', () => {
  it('names every check once, holding accounts derived from the domain', () => {
    expect(new Set(LEDGER_CHECK_NAMES).size).toBe(LEDGER_CHECK_NAMES.length);
    expect(LEDGER_CHECK_NAMES).toEqual(
      expect.arrayContaining([
        'ngn_clearing_matches_deposits',
        'ngn_suspense_matches_deposits',
        'ngn_returns_matches_deposits',
      ]),
    );
    for (const check of LEDGER_CHECKS) {
      expect(check.name).toMatch(/^[a-z_]+$/);
      expect(check.description.length).toBeGreaterThan(0);
    }
  });

  it('holds every operator account at zero or above but the bank, the treasury and FX revenue', () => {
    expect(Object.keys(OPERATOR_ACCOUNTS_WITHOUT_FLOOR).sort()).toEqual([
      'operator:ngn_bank',
      'operator:usd_fx_revenue',
      'operator:usd_treasury',
    ]);
    const floored = FLOORED_OPERATOR_ACCOUNTS.map((a) => a.id);
    expect(floored).toHaveLength(Object.keys(OPERATOR).length - 3);
    for (const id of [
      'operator:ngn_clearing',
      'operator:ngn_suspense',
      'operator:ngn_returns',
      'operator:ngn_unmatched',
      'operator:ngn_reversal_losses',
      'operator:ngn_return_fees',
      'operator:ngn_paid_twice',
      'operator:usd_payouts_pending',
      'operator:usd_suspense',
      'operator:usd_recoveries',
    ]) {
      expect(floored).toContain(id);
    }
    const check = LEDGER_CHECKS.find((c) => c.name === 'operator_accounts_not_below_zero')!;
    for (const id of floored) expect(check.sql).toContain(`'${id}'`);
    expect(check.sql).not.toContain("'operator:ngn_bank'");
    expect(check.sql).not.toContain("'operator:usd_fx_revenue'");
    expect(check.sql).not.toContain("'operator:usd_treasury'");
  });

  it('is one parameterless statement without a question mark (MikroORM and pg both take it)', async () => {
    const sql = ledgerCheckSql();
    expect(sql).not.toContain('?');
    expect(sql).not.toMatch(/\$[0-9]/);
    expect(sql.match(/union all/g)?.length).toBeGreaterThanOrEqual(LEDGER_CHECKS.length - 1);
    const calls: Array<[string, unknown[] | undefined]> = [];
    const violations = await checkLedger(async (text, params) => {
      calls.push([text, params]);
      return [];
    });
    expect(violations).toEqual([]);
    expect(calls).toEqual([[sql, undefined]]);
  });

  it('maps rows to violations and summarises a check cut at the cap', () => {
    const total = MAX_DETAILS_PER_CHECK + 5;
    const rows = [
      { invariant: 'a', detail: 'first', total: '1' },
      ...Array.from({ length: MAX_DETAILS_PER_CHECK }, (_, i) => ({
        invariant: 'b',
        detail: `b${i}`,
        total,
      })),
    ];
    const violations = violationsFrom(rows);
    expect(violations[0]).toEqual({ invariant: 'a', detail: 'first' });
    expect(violations).toHaveLength(1 + MAX_DETAILS_PER_CHECK + 1);
    expect(violations[violations.length - 1]).toEqual({
      invariant: 'b',
      detail: `... and 5 more violations of b`,
    });
  });
});
