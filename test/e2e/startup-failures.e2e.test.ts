import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { migrationsList } from '../../src/db/migrations';
import { adminQuery, createTestDatabase } from '../support/db';
import { freePort, PROCESS_SCRIPTS, runToExit, type Exit } from '../support/process-runs';
import { Client } from 'pg';
import { baseEnv, onrampCli, startGateway } from '../support/stack';

const ONRAMP = join(__dirname, '..', '..', 'bin', 'onramp.js');
type Name = keyof typeof PROCESS_SCRIPTS;
const NAMES: Name[] = ['gateway', 'runner'];
const SAYS: Record<Name, string> = { gateway: 'gateway', runner: 'job runner' };

/** Each process as its own: the gateway without the hot wallet's key, any free ports. */
function run(name: Name, env: NodeJS.ProcessEnv): Promise<Exit> {
  const own = { PORT: '0', INTERNAL_PORT: '0', JOBS_PORT: '0', ...env };
  return runToExit(PROCESS_SCRIPTS[name], name === 'gateway' ? gatewayEnvironment(own) : own);
}

/** The failure is one line on stderr, no stack, and the documented exit code. */
function expectOneLine(exit: Exit, code: number, pattern: RegExp): void {
  const lines = exit.stderr.split('\n').filter((line) => line.trim() !== '');
  expect({ code: exit.code, lines }).toEqual({ code, lines: [expect.stringMatching(pattern)] });
  expect(exit.stderr).not.toMatch(/^\s+at /m);
}

/** An empty database: nothing migrated (created from template0, not the run's template). */
async function emptyDatabase(): Promise<string> {
  const name = `e_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name} template template0`);
  const url = new URL(process.env.TEST_PG_ADMIN_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** docs/cli.md, "Process exit codes": each start-up failure by the built processes. */
describe('start-up failures: one line and a documented exit code', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
  });

  it.each(NAMES)('the %s exits 71 when its port is taken', async (name) => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = String((taken.address() as { port: number }).port);
    try {
      const setting: Record<string, string> =
        name === 'gateway' ? { PORT: port } : { JOBS_PORT: port };
      const exit = await run(name, baseEnv(databaseUrl, { HOST: '127.0.0.1', ...setting }));
      const which = name === 'gateway' ? 'HOST:PORT' : 'HOST:JOBS_PORT';
      expectOneLine(
        exit,
        71,
        new RegExp(`^${SAYS[name]} did not start: ${which}: 127.0.0.1:${port} is already in use$`),
      );
    } finally {
      taken.close();
    }
  });

  it.each(NAMES)('the %s exits 69 once DATABASE_WAIT_SECONDS has passed', async (name) => {
    const closed = `postgresql://onramp:x@127.0.0.1:${await freePort()}/onramp`;
    const exit = await run(name, baseEnv(closed, { DATABASE_WAIT_SECONDS: '1' }));
    expectOneLine(
      exit,
      69,
      new RegExp(`^${SAYS[name]} did not start: the database did not answer within 1 s`),
    );
  });

  it.each(NAMES)('the %s exits 69 at once when the database refuses it', async (name) => {
    const url = new URL(databaseUrl);
    url.pathname = '/no_such_database';
    // No wait bound: a refusal is a configuration to fix, not an outage to wait out.
    const exit = await run(name, baseEnv(url.toString()));
    expectOneLine(exit, 69, /did not start: cannot use the database \(DATABASE_URL\): .*no_such/);
  });

  it.each(NAMES)('the %s exits 78 on invalid configuration', async (name) => {
    const bad = await run(name, baseEnv(databaseUrl, { DB_POOL_MAX: 'many' }));
    expectOneLine(bad, 78, /^Invalid configuration: DB_POOL_MAX: /);
    const production = { ONRAMP_ENV: 'production', ENCRYPTION_KEY: '' };
    const keyless = await run(name, baseEnv(databaseUrl, production));
    expectOneLine(
      keyless,
      78,
      /^Invalid configuration: .*ENCRYPTION_KEY: is required in production/,
    );
  });
});

describe('pending migrations', () => {
  let databaseUrl: string;
  beforeAll(async () => {
    databaseUrl = await emptyDatabase();
  });

  it('onramp db status lists them; both processes refuse to start (65) until db migrate', async () => {
    const names = migrationsList.map((migration) => migration.name);
    expect(await onrampCli(databaseUrl, ['db', 'status', '--json'])).toEqual({
      applied: [],
      pending: names,
      unknown: [],
    });
    for (const name of NAMES) {
      const exit = await run(name, baseEnv(databaseUrl));
      expectOneLine(
        exit,
        65,
        new RegExp(
          `^${SAYS[name]} did not start: the database has ${names.length} pending migrations ` +
            `\\(first: ${names[0]}\\); run \`onramp db migrate\` first`,
        ),
      );
    }

    await onrampCli(databaseUrl, ['db', 'migrate']);
    const status = (await onrampCli(databaseUrl, ['db', 'status', '--json'])) as {
      applied: { name: string; executed_at: string }[];
      pending: string[];
    };
    expect(status.pending).toEqual([]);
    expect(status.applied.map((m) => m.name)).toEqual(names);
    expect(Number.isNaN(Date.parse(status.applied[0].executed_at))).toBe(false);

    // A migration only a newer version knows: listed as unknown, not a reason to refuse
    // (a rolling upgrade runs the older processes on the migrated database).
    const future = 'Migration29991231000000_future';
    const client = new Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      await client.query(
        'insert into mikro_orm_migrations (name, executed_at) values ($1, now())',
        [future],
      );
    } finally {
      await client.end();
    }
    const text = (await onrampCli(databaseUrl, ['db', 'status'])) as string;
    expect(text).toContain(`Applied: ${names.length + 1}`);
    expect(text).toContain('Pending: none');
    expect(text).toMatch(new RegExp(`Unknown to this version.*: 1\\n  ${future}`));
    const gateway = await startGateway(gatewayEnvironment(baseEnv(databaseUrl)));
    await gateway.stop();
    expect(gateway.logs.join('\n')).toContain(future);
  });

  it('onramp db status on a database that does not answer: exit 4, one line', async () => {
    const closed = `postgresql://onramp:x@127.0.0.1:${await freePort()}/onramp`;
    const exit = await runToExit(ONRAMP, { ...baseEnv(closed), LOG_LEVEL: 'silent' }, 30_000, [
      'db',
      'status',
    ]);
    expectOneLine(exit, 4, /^onramp: cannot use the database: /);
  });
});
