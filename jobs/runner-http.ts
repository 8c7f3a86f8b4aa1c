import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorBody, ErrorCode } from '../src/domain/errors';
import type { HealthReport, HealthService } from '../src/system';
import type { JobStoreHealth, JobStoreState } from './job-store-health';
import type { ChainGateway } from '../src/adapters/chain/chain-gateway';

export interface RunnerHttp {
  /** Where it listens, e.g. http://127.0.0.1:4001 (the bound port when JOBS_PORT is 0). */
  url: string;
  close(): Promise<void>;
}

/**
 * The job runner's only HTTP: `GET /health` (200, or 503 when the database, or the job store
 * when Agenda keeps its jobs in MongoDB, is unreachable) and `GET /metrics` (Prometheus text),
 * both without a key like the gateway's `/health`. Anything else is 404, in the API's error
 * shape.
 */
export async function serveRunnerHttp(options: {
  host: string;
  port: number;
  orm: MikroORM;
  health: HealthService;
  registry: Registry;
  log: Logger;
  /** Agenda's store when it is not the database (MongoDB): reported beside it. */
  jobStore?: JobStoreHealth;
  /** The chains' RPC nodes, reported under `chains` (informative: they do not fail /health). */
  chainNodes?: () => Array<Pick<ChainGateway, 'chain' | 'nodes'>>;
}): Promise<RunnerHttp> {
  const { orm, health, registry, log, jobStore } = options;
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      const [report, store] = await Promise.all([health.check(orm.em.fork()), jobStore?.check()]);
      const answer = healthAnswer(report, jobStore, store);
      const chains = options.chainNodes ? nodesReport(options.chainNodes()) : undefined;
      return json(res, answer.status, chains ? { ...answer.body, chains } : answer.body);
    }
    if (req.method === 'GET' && path === '/metrics') {
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
