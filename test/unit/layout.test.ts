import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const root = join(__dirname, '../..');

// The layout rules of docs/architecture.md, held by the suite so a change that breaks one
// fails CI: the import graph by dependency-cruiser (.dependency-cruiser.cjs: no cycles, layers,
// modules through their index, entities in their module), SQL ownership by grep.
describe('layout rules', () => {
  it('dependency-cruiser finds no violation outside the known list', () => {
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        'src',
        'jobs',
        '--config',
        '.dependency-cruiser.cjs',
        '--ignore-known',
        '--output-type',
        'err',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.stdout + run.stderr).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  });

  it('no SQL names another module’s table (scripts/check-sql-ownership.sh)', () => {
    const run = spawnSync('bash', [join(root, 'scripts/check-sql-ownership.sh')], {
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('== 0 breach(es)');
    expect(run.status).toBe(0);
  });
});
