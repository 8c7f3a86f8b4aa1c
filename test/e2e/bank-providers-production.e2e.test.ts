import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { gatewayEnvironment } from '../../src/crypto/process-secrets';
import { createTestDatabase } from '../support/db';
import { request } from '../support/http';
import { productionProviders } from '../support/production-providers';
import { baseEnv, startGateway, startRunner } from '../support/stack';

const ROOT = join(__dirname, '..', '..');
const PROCESSES = {
  gateway: join(ROOT, 'dist', 'src', 'gateway.js'),
  runner: join(ROOT, 'dist', 'jobs', 'runner.js'),
};

interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process to its end (it must end by itself within 30 s). */
function runToExit(script: string, env: NodeJS.ProcessEnv): Promise<Exit> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [script], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${script} did not exit: ${stdout}${stderr}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      // 'exit' can come before the pipes are drained.
      setImmediate(() => resolve({ code, stdout, stderr }));
    });
  });
}

/**
 * ONRAMP_ENV=production with any simulation (the sandbox bank, the sandbox rate walk, the
 * sandbox FX venue) and every other provider real: neither the gateway nor the runner starts;
 * each exits 78 (EX_CONFIG) with one line on stderr naming the setting. With all of them real,
 * both start, so it is the setting that refuses.
 */
describe('production refuses to start on a simulation', () => {
  let databaseUrl: string;
  let providers: Awaited<ReturnType<typeof productionProviders>>;
  const production = (override: Record<string, string> = {}) =>
    baseEnv(databaseUrl, { ONRAMP_ENV: 'production', ...providers.env, ...override });

  beforeAll(async () => {
    databaseUrl = await createTestDatabase();
    providers = await productionProviders();
  });
  afterAll(() => providers?.stop());

  const simulations: [string, Record<string, string>][] = [
    ['BANK_PROVIDERS', { BANK_PROVIDERS: 'sandbox' }],
    ['BANK_PROVIDERS', { BANK_PROVIDERS: 'hmac,sandbox' }],
    ['RATE_SOURCES', { RATE_SOURCES: 'sandbox' }],
    ['FX_VENUE', { FX_VENUE: 'sandbox' }],
  ];

  it.each(['gateway', 'runner'] as const)(
    'the %s exits 78 with one stderr line naming the setting',
    async (name) => {
      const exits = await Promise.all(
        simulations.map(async ([setting, override]) => {
          const env = production(override);
          const exit = await runToExit(
            PROCESSES[name],
            name === 'gateway' ? gatewayEnvironment(env) : env,
          );
          return { override, exit, setting };
        }),
      );
      for (const { override, exit, setting } of exits) {
        const lines = exit.stderr.split('\n').filter((line) => line.trim() !== '');
        expect({ override, code: exit.code, lines: lines.length, stdout: exit.stdout }).toEqual({
          override,
          code: 78,
          lines: 1,
          stdout: '',
        });
        expect(lines[0]).toMatch(new RegExp(`^Invalid configuration: ${setting}: production `));
        for (const other of ['BANK_PROVIDERS', 'RATE_SOURCES', 'FX_VENUE']) {
          if (other !== setting) expect(lines[0]).not.toContain(other);
        }
      }
    },
  );

  it('with every provider real, both start, and /health names the providers', async () => {
    const env = production();
    const [gateway, runner] = await Promise.all([
      startGateway(gatewayEnvironment(env)),
      startRunner(env),
    ]);
    try {
      const health = await request(gateway.url, 'GET', '/health');
      expect(health.status).toBe(200);
      expect(health.body).toMatchObject({
        environment: 'production',
        providers: {
          bank: [{ name: 'hmac', ok: true }],
          rate_sources: env.RATE_SOURCES!.split(','),
          fx_venue: 'busha',
        },
      });
    } finally {
      await Promise.all([gateway.stop(), runner.stop()]);
    }
  });
});
