import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const root = join(__dirname, '../..');

// The layout rules of docs/architecture.md, held by the suite so a change that breaks one
// fails CI: the import graph by dependency-cruiser (.dependency-cruiser.cjs: no cycles, layers,
// modules through their index, entities in their module), SQL ownership by grep.
describe('layout rules', () => {
  it('dependency-cruiser finds no violation (no cycle, no import across the layers)', () => {
    const run = spawnSync(
      process.execPath,
      [
        join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs'),
        'src',
        'jobs',
        '--config',
        '.dependency-cruiser.cjs',
        '--output-type',
        'err',
      ],
      { cwd: root, encoding: 'utf8' },
    );
    expect(run.stdout + run.stderr).toContain('no dependency violations found');
    expect(run.status).toBe(0);
  });

  it('no ORM call names an entity by string (which would bypass the import rule above)', () => {
    // An entity class can only be imported inside its module (entities-stay-in-their-module),
    // so the one way left to reach another module's entity through the ORM is its name.
    const byName =
      /\.(find|findOne|findOneOrFail|findAndCount|findAll|create|getReference|count|nativeUpdate|nativeDelete|upsert|upsertMany|createQueryBuilder|qb|getRepository|insert|insertMany|lock|refresh|merge)\(\s*['"`][A-Z]/;
    const offenders: string[] = [];
    const walk = (dir: string): void => {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else if (entry.name.endsWith('.ts')) {
          readFileSync(path, 'utf8')
            .split('\n')
            .forEach((line, i) => {
              if (byName.test(line)) offenders.push(`${relative(root, path)}:${i + 1}`);
            });
        }
      }
    };
    walk(join(root, 'src'));
    walk(join(root, 'jobs'));
    expect(offenders).toEqual([]);
    expect(byName.test("tx.findOne('Merchant', { id })")).toBe(true);
  });

  it('no SQL names another module’s table (scripts/check-sql-ownership.sh)', () => {
    const run = spawnSync('bash', [join(root, 'scripts/check-sql-ownership.sh')], {
      encoding: 'utf8',
    });
    expect(run.stdout).toContain('== 0 breach(es)');
    expect(run.status).toBe(0);
  });
});
