import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { request } from '../support/http';
import { freePort, PROCESS_SCRIPTS, startProbing, type Probing } from '../support/process-runs';
import { baseEnv, eventually, onrampCli } from '../support/stack';

interface Postgres {
  url: string;
  stop(): Promise<void>;
}

/** Embedded PostgreSQL on a fixed folder and port, so it can be stopped and started again. */
function startPostgres(dataDir: string, port: number): Promise<Postgres> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { spawnEmbeddedPostgres } = require(
    join(__dirname, '..', '..', 'dist', 'src', 'embedded', 'pg-process.js'),
  );
  return spawnEmbeddedPostgres({ dataDir, port, database: 'onramp', persistent: true });
}

/**
 * Issue 37: a process started while PostgreSQL is down stays live (/livez 200) and not ready
 * (/readyz 503 naming the database) instead of exiting, and becomes ready on its own once the
 * database is up: the same process, never restarted. Both the gateway and the job runner.
 */
describe('started with the database down', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'onramp-probes-'));
  let postgres: Postgres | undefined;
  const running: Probing[] = [];

  afterAll(async () => {
    await Promise.all(running.map((process) => process.stop()));
    await postgres?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers /livez 200 and /readyz 503, then is ready once the database comes up', async () => {
    const port = await freePort();
    postgres = await startPostgres(dataDir, port);
    const databaseUrl = postgres.url;
    await onrampCli(databaseUrl, ['db', 'migrate']);
    await postgres.stop();
    postgres = undefined;

    const env = baseEnv(databaseUrl);
    const [gateway, runner] = await Promise.all([
      startProbing(PROCESS_SCRIPTS.gateway, {
        ...gatewayEnvironment(env),
        PORT: '0',
        HOST: '127.0.0.1',
        INTERNAL_PORT: '0',
      }),
      startProbing(PROCESS_SCRIPTS.runner, env),
    ]);
    running.push(gateway, runner);
    // Both have tried the database and found it down.
    await Promise.all([
      gateway.waitFor('waiting_for_database'),
      runner.waitFor('waiting_for_database'),
    ]);

    for (const [process, name] of [
      [gateway, 'gateway'],
      [runner, 'job runner'],
    ] as const) {
      const live = await request(process.url, 'GET', '/livez');
      expect({ status: live.status, body: live.body }).toEqual({
        status: 200,
        body: { status: 'ok', process: name, phase: 'waiting_for_database' },
      });
      const ready = await request(process.url, 'GET', '/readyz');
      expect(ready.status).toBe(503);
      expect(ready.body).toMatchObject({
        status: 'unavailable',
        phase: 'waiting_for_database',
        checks: { database: 'down' },
        error: { code: 'service_unavailable' },
      });
      expect(ready.body.failed).toContain('database');
      const health = await request(process.url, 'GET', '/health');
      expect(health.status).toBe(503);
      expect(health.body).toMatchObject({ status: 'unavailable', database: 'down' });
    }
    // The API itself answers in its error shape meanwhile, never a refused connection.
    const rates = await request(gateway.url, 'GET', '/v1/rates?from=NGN');
    expect(rates.status).toBe(503);
    expect(rates.body.error.code).toBe('service_unavailable');
    expect(rates.headers.get('retry-after')).toBe('5');

    postgres = await startPostgres(dataDir, port);
    const readyWhen = async (process: Probing) =>
      eventually(
        async () => {
          const ready = await request(process.url, 'GET', '/readyz');
          return ready.status === 200 ? ready.body : undefined;
        },
        90_000,
        250,
      );
    const [gatewayReady, runnerReady] = await Promise.all([readyWhen(gateway), readyWhen(runner)]);
    expect(gatewayReady).toMatchObject({
      status: 'ok',
      process: 'gateway',
      phase: 'running',
      checks: { database: 'ok' },
    });
    expect(runnerReady).toMatchObject({
      status: 'ok',
      process: 'job runner',
      phase: 'running',
      checks: { database: 'ok', job_store: 'ok' },
      job_store_backend: 'postgres',
    });
    // The same processes: never exited, and the gateway serves its API on the same port.
    expect([gateway.child.exitCode, runner.child.exitCode]).toEqual([null, null]);
    const listening = await gateway.waitFor('listening');
    expect(listening.url).toBe(gateway.url);
    expect((await request(gateway.url, 'GET', '/health')).status).toBe(200);
    expect((await request(gateway.url, 'GET', '/livez')).body.phase).toBe('running');
  });
});
