import { execFile } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { createTestDatabase } from '../support/db';
import { createMerchant, startStack, type Stack } from '../support/stack';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');
const CLIENT = join(ROOT, 'clients', 'typescript');
const NPM_QUIET = ['--no-audit', '--no-fund', '--loglevel=error'];

/** The package folder of an installed dependency, found the way Node would from `from`. */
function packageDir(name: string, from: string): string {
  return dirname(require.resolve(`${name}/package.json`, { paths: [from] }));
}

/**
 * Tarballs of the client's runtime dependencies and theirs, packed from this repository's
 * node_modules: what a registry would serve, so the install below needs no network.
 */
async function packDependencies(into: string): Promise<void> {
  const seen = new Set<string>();
  const visit = async (name: string, from: string) => {
    const dir = packageDir(name, from);
    if (seen.has(dir)) return;
    seen.add(dir);
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', into, dir, ...NPM_QUIET]);
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    for (const dependency of Object.keys(manifest.dependencies ?? {})) await visit(dependency, dir);
  };
  const client = JSON.parse(readFileSync(join(CLIENT, 'package.json'), 'utf8'));
  for (const dependency of Object.keys(client.dependencies)) await visit(dependency, CLIENT);
}

/** An empty project of the given module type with the packed client installed, offline. */
async function projectWithClient(
  scratch: string,
  type: 'module' | 'commonjs',
  tarballs: string[],
): Promise<string> {
  const project = join(scratch, type);
  mkdirSync(project);
  writeFileSync(
    join(project, 'package.json'),
    JSON.stringify({ name: `merchant-${type}`, private: true, type }),
  );
  await run('npm', ['install', '--offline', '--ignore-scripts', ...NPM_QUIET, ...tarballs], {
    cwd: project,
  });
  return project;
}

/**
 * The typed client as a merchant installs it: `npm pack` (its prepack builds dist/), the
 * tarball installed from the file into an empty ES module project and an empty CommonJS
 * project, and the client's quick start run from each against the real gateway and runner.
 */
describe('the typed client package', () => {
  let stack: Stack;
  let databaseUrl: string;
  let scratch: string;
  let tarballs: string[];

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    stack = await startStack(databaseUrl);
    scratch = mkdtempSync(join(tmpdir(), 'client-package-'));
    const packs = join(scratch, 'tarballs');
    mkdirSync(packs);
    await run('npm', ['pack', '--pack-destination', packs, ...NPM_QUIET], { cwd: CLIENT });
    await packDependencies(packs);
    tarballs = readdirSync(packs).map((file) => join(packs, file));
  });
  afterAll(async () => {
    await stack?.stop();
  });

  it('packs its own build, license and changelog, and nothing of the sources', async () => {
    // dist/ is beforeAll's build; the prepack would print its line into the JSON.
    const { stdout } = await run(
      'npm',
      ['pack', '--dry-run', '--json', '--ignore-scripts', ...NPM_QUIET],
      {
        cwd: CLIENT,
      },
    );
    const [pack] = JSON.parse(stdout) as Array<{ name: string; files: Array<{ path: string }> }>;
    const files = pack.files.map((file) => file.path).sort();
    expect(pack.name).toBe('@ngn-onramp/client');
    expect(files).toEqual(
      expect.arrayContaining([
        'CHANGELOG.md',
        'LICENSE',
        'README.md',
        'dist/index.cjs',
        'dist/index.d.ts',
        'dist/index.mjs',
        'dist/schema.d.ts',
        'package.json',
      ]),
    );
    expect(files.filter((file) => file.startsWith('src/') || file.endsWith('.ts.map'))).toEqual([]);
  });

  it.each([
    ['module', 'quick-start.mjs'],
    ['commonjs', 'quick-start.cjs'],
  ] as const)(
    'installs into an empty %s project and its quick start settles a deposit',
    async (type, example) => {
      const project = await projectWithClient(scratch, type, tarballs);
      const installed = JSON.parse(
        readFileSync(
          join(project, 'node_modules', '@ngn-onramp', 'client', 'package.json'),
          'utf8',
        ),
      );
      expect(installed.name).toBe('@ngn-onramp/client');
      copyFileSync(join(CLIENT, 'examples', example), join(project, example));
      const { api_key } = await createMerchant(databaseUrl, `Quick Start ${type}`);
      const { stdout } = await run(process.execPath, [example], {
        cwd: project,
        env: { ...process.env, ONRAMP_URL: stack.url, ONRAMP_API_KEY: api_key },
        timeout: 90_000,
      });
      expect(stdout).toMatch(/^deposit \S+: SETTLED, [\d.]+ USDC$/m);
      expect(stdout).toMatch(/^webhook deposit\.created verified \(evt_[0-9a-f]{32}\)$/m);
      expect(stdout).toMatch(/^deposit\.settled webhook for \S+: SETTLED$/m);
      expect(stdout).not.toMatch(/refused/);
    },
  );
});
