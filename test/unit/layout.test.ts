import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

// The layout rules of docs/architecture.md (module entry points, no transport in modules,
// SQL only in the owning module, nothing written by reconciliation), held by the suite so a
// change that breaks one fails CI. The script prints each breach.
describe('layout rules (scripts/check-layout.sh)', () => {
  it('reports no breach', () => {
    const run = spawnSync('bash', [join(__dirname, '../../scripts/check-layout.sh')], {
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('== 0 breach(es)');
    expect(run.status).toBe(0);
  });
});
