import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Registry } from 'prom-client';
import { errorBody, ErrorCode } from '../src/domain/errors';
import type { HealthService } from '../src/system';

export interface RunnerHttp {
  /** Where it listens, e.g. http://127.0.0.1:4001 (the bound port when JOBS_PORT is 0). */
  url: string;
  close(): Promise<void>;
}

/**
 * The job runner's only HTTP: `GET /health` (200, or 503 when the database is unreachable)
 * and `GET /metrics` (Prometheus text), both without a key like the gateway's `/health`.
 * Anything else is 404, in the API's error shape.
 */
export async function serveRunnerHttp(options: {
  host: string;
  port: number;
  orm: MikroORM;
  health: HealthService;
  registry: Registry;
  log: Logger;
}): Promise<RunnerHttp> {
  const { orm, health, registry, log } = options;
  const json = (res: ServerResponse, status: number, body: unknown) =>
    res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (req.method === 'GET' && path === '/health') {
      const report = await health.check(orm.em.fork());
      if (report.status === 'ok') return json(res, 200, report);
      const down = errorBody(ErrorCode.ServiceUnavailable, 'The database is unreachable');
      return json(res, 503, { ...report, ...down });
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
