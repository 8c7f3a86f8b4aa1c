import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { configSchema } from '../../src/config';
import { parseDockerfile } from '../support/dockerfile';

/**
 * docker-compose.yml and the Dockerfile, checked without Docker (issue 37): every variable
 * given to the service's processes is one the configuration reads, the published and scraped
 * ports are the ones those variables set, healthchecks call probes the processes serve, and
 * Docker's SIGKILL comes after the processes' own shutdown deadline.
 */
const root = join(__dirname, '..', '..');
const compose = parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Service>;
  volumes: Record<string, unknown>;
};
const prometheus = parse(readFileSync(join(root, 'deploy', 'prometheus.yml'), 'utf8')) as {
  scrape_configs: {
    job_name: string;
    metrics_path: string;
    static_configs: { targets: string[] }[];
  }[];
};

interface Service {
  image: string;
  build?: string;
  command?: string[];
  environment?: Record<string, string>;
  ports?: string[];
  volumes?: string[];
  depends_on?: Record<string, { condition: string }> | string[];
  healthcheck?: { test: string[] };
  stop_grace_period?: string;
}

/** The services that run this repository's image. */
const ours = Object.entries(compose.services).filter(([, s]) => s.build === '.');
const byName = (name: string) => compose.services[name];
/** The process a service runs, from its command. */
const processOf = (service: Service) =>
  service.command?.find((arg) => arg.endsWith('gateway.js'))
    ? 'gateway'
    : service.command?.find((arg) => arg.endsWith('runner.js'))
      ? 'runner'
      : 'cli';

function seconds(duration: string): number {
  const match = /^(\d+)(ms|s|m)$/.exec(duration);
  if (!match) throw new Error(`not a duration: ${duration}`);
  return Number(match[1]) * { ms: 0.001, s: 1, m: 60 }[match[2] as 'ms' | 's' | 'm'];
}

describe('docker-compose.yml', () => {
  it('runs the migration, the gateway and the job runner from the image', () => {
    expect(ours.map(([name, s]) => [name, processOf(s)])).toEqual([
      ['migrate', 'cli'],
      ['gateway', 'gateway'],
      ['jobs', 'runner'],
    ]);
    expect(byName('migrate').command).toEqual(['node', 'bin/onramp.js', 'db', 'migrate']);
  });

  it('gives the processes only variables the configuration reads', () => {
    const known = new Set(Object.keys(configSchema.shape));
    for (const [name, service] of ours) {
      const unknown = Object.keys(service.environment ?? {}).filter((key) => !known.has(key));
      expect({ name, unknown }).toEqual({ name, unknown: [] });
    }
  });

  it('requires ENCRYPTION_KEY from the operator (no default, compose stops without it)', () => {
    for (const [, service] of ours) {
      expect(service.environment?.ENCRYPTION_KEY).toMatch(/^\$\{ENCRYPTION_KEY:\?.+\}$/);
    }
  });

  it('carries values the configuration accepts (the key aside)', () => {
    for (const [name, service] of ours) {
      const env = { ...service.environment, ENCRYPTION_KEY: '7e57'.repeat(16) };
      const parsed = configSchema.safeParse(env);
      expect({ name, issues: parsed.error?.issues ?? [] }).toEqual({ name, issues: [] });
    }
  });

  it('publishes the gateway on PORT only; Prometheus scrapes INTERNAL_PORT and JOBS_PORT', () => {
    const gateway = byName('gateway');
    const env = gateway.environment!;
    expect(gateway.ports).toEqual([`${env.PORT}:${env.PORT}`]);
    expect(byName('jobs').ports).toBeUndefined();
    // The internal listener must listen beyond loopback for a scraper on the compose network.
    expect(env.INTERNAL_HOST).toBe('0.0.0.0');
    const targets = Object.fromEntries(
      prometheus.scrape_configs.map((job) => [job.job_name, job.static_configs[0].targets]),
    );
    expect(targets).toEqual({
      'onramp-gateway': [`gateway:${env.INTERNAL_PORT}`],
      'onramp-jobs': [`jobs:${byName('jobs').environment!.JOBS_PORT}`],
    });
    expect(prometheus.scrape_configs.every((job) => job.metrics_path === '/metrics')).toBe(true);
    const mounted = byName('prometheus').volumes!.find((v) => v.includes('prometheus.yml'))!;
    expect(existsSync(join(root, mounted.split(':')[0]))).toBe(true);
  });

  it('healthchecks call a probe the processes serve, through the script the image ships', () => {
    for (const name of ['gateway', 'jobs']) {
      const test = byName(name).healthcheck!.test;
      expect(test.slice(0, 3)).toEqual(['CMD', 'node', 'bin/healthcheck.js']);
      expect(['livez', 'readyz']).toContain(test[3]);
    }
    expect(existsSync(join(root, 'bin', 'healthcheck.js'))).toBe(true);
    const script = readFileSync(join(root, 'bin', 'healthcheck.js'), 'utf8');
    expect(script).toContain("'livez'");
    // The probes the script names are routes of both processes.
    const gatewayRoutes = readFileSync(join(root, 'src/api/probes/probes.route.ts'), 'utf8');
    const runnerRoutes = readFileSync(join(root, 'jobs/runner-http.ts'), 'utf8');
    for (const path of ['/livez', '/readyz']) {
      expect(gatewayRoutes).toContain(`'${path}'`);
      expect(runnerRoutes).toContain(`'${path}'`);
    }
    for (const name of ['postgres', 'mongodb']) expect(byName(name).healthcheck).toBeDefined();
  });

  it('gives each process more than SHUTDOWN_TIMEOUT_MS to drain before SIGKILL', () => {
    for (const name of ['gateway', 'jobs']) {
      const service = byName(name);
      const timeoutMs = configSchema.shape.SHUTDOWN_TIMEOUT_MS.parse(
        service.environment!.SHUTDOWN_TIMEOUT_MS,
      );
      expect(seconds(service.stop_grace_period!)).toBeGreaterThan(timeoutMs / 1000);
    }
  });

  it('runs MongoDB 8 with authentication, and the runner logs in', () => {
    const mongo = byName('mongodb');
    expect(mongo.image).toMatch(/^mongo:8(\.|$)/);
    const user = mongo.environment!.MONGO_INITDB_ROOT_USERNAME;
    const password = mongo.environment!.MONGO_INITDB_ROOT_PASSWORD;
    expect(user && password).toBeTruthy();
    const url = new URL(byName('jobs').environment!.AGENDA_MONGODB_URL);
    expect([url.username, url.password, url.host]).toEqual([user, password, 'mongodb:27017']);
    expect(url.searchParams.get('authSource')).toBe('admin');
  });

  it('names only services and volumes that exist', () => {
    for (const [, service] of Object.entries(compose.services)) {
      const deps = Array.isArray(service.depends_on)
        ? service.depends_on
        : Object.keys(service.depends_on ?? {});
      for (const dep of deps) expect(Object.keys(compose.services)).toContain(dep);
      for (const volume of service.volumes ?? []) {
        const source = volume.split(':')[0];
        if (!source.startsWith('.')) expect(Object.keys(compose.volumes)).toContain(source);
      }
    }
    // The processes refuse pending migrations: both wait for the migration to complete.
    for (const name of ['gateway', 'jobs']) {
      expect(byName(name).depends_on).toMatchObject({
        migrate: { condition: 'service_completed_successfully' },
      });
    }
  });
});

describe('Dockerfile', () => {
  const stages = parseDockerfile(join(root, 'Dockerfile'));
  const runs = (stage: string) =>
    stages.find((s) => s.name === stage)!.instructions.filter((i) => i.keyword === 'RUN');

  it('builds on the stated Node (package.json engines, .nvmrc)', () => {
    const major = readFileSync(join(root, '.nvmrc'), 'utf8').trim();
    for (const stage of stages) expect(stage.image).toMatch(new RegExp(`^node:${major}-`));
    const engines: string = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).engines
      .node;
    expect(engines).toContain(`^${major}.`);
  });

  it('installs the optional dependencies in the build stage (esbuild needs its binary)', () => {
    const install = runs('build').find((run) => run.text.startsWith('npm ci'))!;
    expect(install.text).not.toMatch(/--omit/);
  });

  it('checks the health of either process with the shipped script, on /livez', () => {
    const runtime = stages.at(-1)!;
    const check = runtime.instructions.find((i) => i.keyword === 'HEALTHCHECK')!;
    expect(check.exec).toEqual(['node', 'bin/healthcheck.js', 'livez']);
    const copied = runtime.instructions.filter((i) => i.keyword === 'COPY').map((i) => i.text);
    expect(copied).toContain('bin ./bin');
  });
});
