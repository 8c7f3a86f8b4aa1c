import { join } from 'node:path';
import { statusWritesIn, statusWritesOutsideMoves } from '../support/status-write-scan';

// Every status changes only inside a `move*` function, which checks the move against the
// aggregate's transition table in src/domain (issue 34). The scan reads src/ (migrations, the
// pure src/domain and the read-only src/reconciliation aside) and lists each status written
// anywhere else as file:line.
describe('status writes only inside move* functions', () => {
  it('finds none elsewhere in src', () => {
    expect(statusWritesOutsideMoves(join(__dirname, '../..'))).toEqual([]);
  });
});

describe('the scan itself', () => {
  const lines = (code: string) => statusWritesIn('x.ts', code).map((w) => `${w.line} ${w.what}`);

  it('finds a status assigned to an entity or a row, outside move*', () => {
    const code = [
      'function freeze(m) {',
      "  m.status = 'FROZEN';",
      "  m['status'] = 'FROZEN';",
      '}',
      'function moveMerchant(m) {',
      "  m.status = 'FROZEN';",
      '}',
      'class S { moveTo(d) { const f = () => { d.status = to; }; f(); } }',
    ].join('\n');
    expect(lines(code)).toEqual(['2 m.status assigned', "3 m['status'] assigned"]);
  });

  it('does not take reads, comparisons, filters, views or HTTP statuses for writes', () => {
    const code = [
      "if (m.status === 'FROZEN') {}",
      "const found = em.find(Onramp, { status: 'ACTIVE' });",
      'const view = { ...deposit, status: row.status };',
      'head.status = 500;',
      'const payout = Object.assign(new Payout(), { status: row.status });',
      "const sql = `select * from deposits d where d.status = 'SETTLED' and status = ?`;",
      "const q = `update deposits set updated_at = ? where id = ? and status = 'FLAGGED'`;",
      "const c = `select case when d.status = 'RETURNING' then 1 end from deposits d`;",
      'const i = `insert into events (id, kind, status) values (?, ?, null)`;',
    ].join('\n');
    expect(lines(code)).toEqual([]);
  });

  it('finds SQL that sets a status: SET lists, fragments, inserts, upserts, builders', () => {
    const code = [
      'async function cancel(tx) {',
      '  await tx.execute(`update deposit_returns',
      "     set failure_reason = ?, status = 'CANCELLED'",
      '   where id = ?`);',
      "  write(`status = 'QUOTED', quote_id = ?,`);",
      "  await tx.execute(`insert into deposit_returns (id, status) values (?, 'PENDING')`);",
      '  await tx.execute(`insert into t (id) values (?) on conflict (id) do update set',
      '    status = excluded.status`);',
      "  const m = sqlMove(TABLE, 'status', 'FAILED');",
      '  const o = tx.create(Onramp, { id, status: OnrampStatus.ACTIVE });',
      "  const w = Object.assign(new Withdrawal(), { status: 'PENDING' });",
      '}',
    ].join('\n');
    expect(lines(code)).toEqual([
      '3 SQL SET status',
      '5 SQL fragment sets status',
      '6 SQL INSERT of a status',
      '8 SQL SET status',
      '9 sqlMove() called',
      '10 Onramp created with a status',
      '11 Withdrawal created with a status',
    ]);
  });

  it('lets move* functions write, however deep the statement', () => {
    const code = [
      'export function moveDepositReturn(tx) {',
      '  return tx.transactional(async () => {',
      "    await tx.execute(`update deposit_returns set status = 'SENT' where id = ?`);",
      '  });',
      '}',
      "const moveFxOrder = (to) => sqlMove(TABLE, 'status', to);",
    ].join('\n');
    expect(lines(code)).toEqual([]);
  });
});
