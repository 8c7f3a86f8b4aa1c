import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorBody, ErrorCode } from '../src/domain/errors';
import type { HealthReport, HealthService } from '../src/system';
import type { JobStoreHealth, JobStoreState } from './job-store-health';
import type { ChainGateway } from '../src/adapters/chain/chain-gateway';
import { livenessAnswer, readinessAnswer, type Phase } from '../src/lib/readiness';
import { listenFailure } from '../src/lib/startup-failure';

/** How the probes name this process. */
const RUNNER = 'job runner';

export interface RunnerHttp {
  /** Where it listens, e.g. http://127.0.0.1:4001 (the bound port when JOBS_PORT is 0). */
  url: string;
  close(): Promise<void>;
}

/** What the runner's HTTP reads, filled in as start-up goes (nothing needs the database). */
export interface RunnerProbes {
  phase(): Phase;
  /** Undefined until the database has answered and the ORM is open. */
  orm(): MikroORM | undefined;
  health: HealthService;
  /** Undefined until the metrics exist (they read the database). */
  registry(): Registry | undefined;
  /** Agenda's store when it is not the database (MongoDB): reported beside it. */
  jobStore?: JobStoreHealth;
  /** Reported by /readyz, never required (the bank providers' last checks). */
  providers?(): unknown;
}

/**
 * The job runner's only HTTP, served from the first moment of start-up, without a key:
 * `GET /livez` (200 while the process answers), `GET /readyz` (200 once it takes jobs and the
 * database and the job store answer; 503 naming what fails), `GET /health` (the database, and
 * the job store when Agenda keeps its jobs in MongoDB: 200 or 503) and `GET /metrics`
 * (Prometheus text; 503 until the database first answered). Anything else is 404, in the API's
 * error shape.
 */
export async function serveRunnerHttp(options: {
  host: string;
  port: number;
  log: Logger;
  probes: RunnerProbes;
  /** The chains' RPC nodes, reported under `chains` (informative: they do not fail /health). */
  chainNodes?: () => Array<Pick<ChainGateway, 'chain' | 'nodes'>>;
}): Promise<RunnerHttp> {
  const { log, probes } = options;
  const jobStore = probes.jobStore;
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  const databaseReport = async (): Promise<HealthReport> => {
    const orm = probes.orm();
    return orm ? probes.health.check(orm.em.fork()) : { status: 'unavailable', database: 'down' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/livez') {
      const answer = livenessAnswer(RUNNER, probes.phase());
      return json(res, answer.status, answer.body);
    }
    if (req.method === 'GET' && path === '/readyz') {
      const [report, store] = await Promise.all([databaseReport(), jobStore?.check()]);
      const answer = readinessAnswer(
        RUNNER,
        probes.phase(),
        { database: report.database, job_store: store ?? report.database },
        {
          job_store_backend: jobStore ? jobStore.field : 'postgres',
          ...(probes.providers ? { providers: probes.providers() } : {}),
        },
      );
      return json(res, answer.status, answer.body);
    }
    if (req.method === 'GET' && path === '/health') {
      const [report, store] = await Promise.all([databaseReport(), jobStore?.check()]);
      const answer = healthAnswer(report, jobStore, store);
      const chains = options.chainNodes ? nodesReport(options.chainNodes()) : undefined;
      return json(res, answer.status, chains ? { ...answer.body, chains } : answer.body);
    }
    if (req.method === 'GET' && path === '/metrics') {
      const registry = probes.registry();
      if (!registry) {
        const body = errorBody(
          ErrorCode.ServiceUnavailable,
          'Metrics start once the database answers',
        );
        return json(res, 503, body);
      }
      const text = await registry.metrics();
      return res.writeHead(200, { 'content-type': registry.contentType }).end(text);
    }
    return json(res, 404, errorBody(ErrorCode.NotFound, `No route ${req.method} ${path}`));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log.error({ err: error }, 'runner http request failed');
      if (!res.headersSent) json(res, 500, errorBody(ErrorCode.InternalError, 'Request failed'));
      else res.destroy();
    });
  });
  // Scrapes and probes only: short timeouts, nothing held open across shutdown.
  server.keepAliveTimeout = 5_000;
  server.requestTimeout = 10_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: unknown) => {
    throw listenFailure(error, 'HOST:JOBS_PORT', `${options.host}:${options.port}`);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeIdleConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * Each chain's nodes as the block follower's last head poll found them. A chain without a
 * trusted node is down for payouts (they wait), not for the runner, so it does not fail /health.
 */
function nodesReport(gateways: Array<Pick<ChainGateway, 'chain' | 'nodes'>>) {
  return Object.fromEntries(
    gateways.map((gateway) => [
      gateway.chain,
      {
        nodes: gateway.nodes().map((n) => ({
          node: n.node,
          host: n.host,
          up: n.up,
          head: n.head?.toString() ?? null,
          lag_blocks: n.lagBlocks,
          trusted: n.trusted,
          detail: n.detail,
        })),
      },
    ]),
  );
}

/** 200 when the database (and the job store, if any) answers; else 503 naming what does not. */
function healthAnswer(
  report: HealthReport,
  jobStore: JobStoreHealth | undefined,
  store: JobStoreState | undefined,
): { status: number; body: Record<string, unknown> } {
  const body = { ...report, ...(jobStore ? { [jobStore.field]: store } : {}) };
  const unreachable = [
    ...(report.database === 'down' ? ['The database'] : []),
    ...(jobStore && store === 'down' ? [jobStore.label] : []),
  ];
  if (unreachable.length === 0) return { status: 200, body };
  const verb = unreachable.length > 1 ? 'are' : 'is';
  const down = errorBody(
    ErrorCode.ServiceUnavailable,
    `${unreachable.join(' and ')} ${verb} unreachable`,
  );
  return { status: 503, body: { ...body, status: 'unavailable', ...down } };
}
