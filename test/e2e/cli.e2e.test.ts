import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from 'pg';
import { adminQuery, createTestDatabase, forgetTestDatabase } from '../support/db';
import { baseEnv } from '../support/stack';

const ROOT = join(__dirname, '..', '..');
const BIN = join(ROOT, 'bin', 'onramp.js');
const VERSION = (
  JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }
).version;

interface Run {
  code: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Runs `onramp` as an operator would, with whatever exit code it ends with. */
function onramp(args: string[], env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Run> {
  const started = Date.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...nodeArgs, BIN, ...args],
      { env, cwd: ROOT },
      (error, stdout, stderr) =>
        resolve({
          code: error ? Number((error as { code?: number }).code ?? -1) : 0,
          stdout,
          stderr,
          ms: Date.now() - started,
        }),
    );
  });
}

const noStack = (text: string) => expect(text).not.toMatch(/^\s+at /m);

/**
 * The operator command line as a process: its version, JSON on every command, errors as one
 * line or one JSON document with the exit codes docs/cli.md lists, and a start-up that loads
 * the database layer only for commands that use it.
 */
describe('onramp command line', () => {
  let databaseUrl: string;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    env = { ...baseEnv(databaseUrl), LOG_LEVEL: 'silent' };
  });

  it('prints its version, as text or JSON', async () => {
    for (const flag of ['--version', '-V']) {
      expect(await onramp([flag], env)).toMatchObject({ code: 0, stdout: `${VERSION}\n` });
    }
    const json = await onramp(['--version', '--json'], env);
    expect(JSON.parse(json.stdout)).toEqual({ version: VERSION });
  });

  it('answers --help without loading the ORM, viem or the services', async () => {
    // A preload that lists, as the process exits, every loaded file of these packages.
    const dir = mkdtempSync(join(tmpdir(), 'onramp-cli-'));
    const preload = join(dir, 'loaded.js');
    writeFileSync(
      preload,
      `process.on('exit', () => process.stderr.write(JSON.stringify(Object.keys(require.cache)
        .filter((f) => /node_modules[\\\\/](@mikro-orm|viem|pg|type-graphql)[\\\\/]|dist[\\\\/]src[\\\\/]container/.test(f)))));`,
    );
    for (const args of [['--help'], ['--version'], ['merchants', 'create']]) {
      const run = await onramp(args, env, ['--require', preload]);
      expect(JSON.parse(run.stderr.slice(run.stderr.lastIndexOf('[')))).toEqual([]);
    }
    const help = await onramp(['--help'], env);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('ledger');
    // A bound for a loaded machine, not a benchmark (about 0.1 s alone).
    expect(help.ms).toBeLessThan(3000);
  });

  it('prints treasury and ledger check as one JSON document under --json', async () => {
    const treasury = await onramp(['treasury', '--json'], env);
    expect(treasury.code).toBe(0);
    expect(treasury.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(treasury.stdout)).toMatchObject({
      serviceOwned: expect.any(Object),
      excluded: expect.any(Object),
    });
    const check = await onramp(['ledger', 'check', '--json'], env);
    expect(check.code).toBe(0);
    expect(JSON.parse(check.stdout)).toMatchObject({ ok: true, violations: [] });
    // Without --json the same report, indented, as scripts already read it.
    expect((await onramp(['ledger', 'check'], env)).stdout).toContain('"ok": true');
  });

  it('exits 1 with the report when the ledger check fails', async () => {
    const broken = await createTestDatabase();
    forgetTestDatabase(broken);
    const client = new Client({ connectionString: broken });
    await client.connect();
    // A transaction without postings, written past the triggers that would refuse it.
    await client.query('set session_replication_role = replica');
    await client.query(
      `insert into ledger_transactions (id, kind, deposit_id, memo, created_at)
       values ('ltx_cli_broken', 'deposit_received', null, 'test', now())`,
    );
    await client.end();
    const run = await onramp(['ledger', 'check', '--json'], { ...env, DATABASE_URL: broken });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('');
    const report = JSON.parse(run.stdout);
    expect(report.ok).toBe(false);
    expect(report.violations).toContainEqual({
      invariant: 'transactions_have_postings',
      detail: expect.stringContaining('ltx_cli_broken'),
    });
  });

  it('reports a refusal as one line, or as JSON on stderr, with exit code 1', async () => {
    const text = await onramp(['merchants', 'freeze', 'mer_nope'], env);
    expect(text).toMatchObject({ code: 1, stdout: '', stderr: 'onramp: No merchant mer_nope\n' });
    const json = await onramp(['merchants', 'freeze', 'mer_nope', '--json'], env);
    expect(json.code).toBe(1);
    expect(json.stdout).toBe('');
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'not_found', message: 'No merchant mer_nope' },
    });
  });

  it('exits 2 on a usage error, with nothing but the JSON error under --json', async () => {
    for (const args of [
      ['merchants', 'list'],
      ['audit', '--limit', '0'],
      ['deposits', 'resolve', 'dep_x'],
      ['sandbox', 'rate-source-down', 'maybe'],
    ]) {
      const text = await onramp(args, env);
      expect(text.code).toBe(2);
      expect(text.stderr.trim().split('\n')).toHaveLength(1);
      const json = await onramp([...args, '--json'], env);
      expect(json.code).toBe(2);
      expect(JSON.parse(json.stderr)).toEqual({
        error: { code: 'usage_error', message: expect.any(String) },
      });
    }
  });

  it('exits 3 on a configuration error, without a stack, even when debugging', async () => {
    const bad = { ...env, DATABASE_URL: 'mysql://nope' };
    const text = await onramp(['treasury', '--debug'], bad);
    expect(text.code).toBe(3);
    expect(text.stderr).toMatch(/^onramp: invalid configuration: DATABASE_URL: .+\n$/);
    noStack(text.stderr);
    const json = await onramp(['treasury', '--json'], { ...bad, LOG_LEVEL: 'debug' });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toEqual({
      error: { code: 'configuration_error', message: expect.stringContaining('DATABASE_URL') },
    });
  });

  it('exits 4 when the database is unreachable, missing or not migrated, and creates none', async () => {
    const url = new URL(databaseUrl);
    const refused = await onramp(['audit', '--json'], {
      ...env,
      DATABASE_URL: `postgresql://postgres:pw@127.0.0.1:1${url.pathname}`,
    });
    expect(refused.code).toBe(4);
    expect(JSON.parse(refused.stderr).error.code).toBe('database_unavailable');

    const missingName = `${url.pathname.slice(1)}_missing`;
    const missing = await onramp(['audit'], {
      ...env,
      DATABASE_URL: Object.assign(new URL(databaseUrl), { pathname: `/${missingName}` }).href,
    });
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain(`database "${missingName}" does not exist`);
    noStack(missing.stderr);
    expect(await adminQuery('select 1 from pg_database where datname = $1', [missingName])).toEqual(
      [],
    );

    // The server's maintenance database: it exists, and holds none of the service's tables.
    const unmigrated = await onramp(['merchants', 'freeze', 'mer_x', '--json'], {
      ...env,
      DATABASE_URL: process.env.TEST_PG_ADMIN_URL,
    });
    expect(unmigrated.code).toBe(4);
    expect(JSON.parse(unmigrated.stderr).error).toEqual({
      code: 'database_not_migrated',
      message: expect.stringContaining('onramp db migrate'),
    });
  }, 120_000);

  it('migrates under --json without progress lines on stdout', async () => {
    const run = await onramp(['db', 'migrate', '--json'], env);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toEqual({ applied: [] });
  });
});
