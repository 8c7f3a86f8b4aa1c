import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { errorBody, ErrorCode } from '../../domain/errors';
import { listenFailure } from '../../lib/startup-failure';
import { livenessAnswer, readinessAnswer, type Phase, type ProbeAnswer } from '../../lib/readiness';

export interface WaitingState {
  phase: Phase;
  /** 'down' while the database has not answered yet. */
  database: 'ok' | 'down';
}

export interface WaitingListener {
  /** Where it listens, e.g. http://127.0.0.1:4000 (the bound port when the setting is 0). */
  url: string;
  port: number;
  /** Stops listening at once (the real listener takes the port next) and drops connections. */
  close(): Promise<void>;
}

/**
 * What a gateway port answers before the gateway itself listens there: while the process
 * waits for the database (or for its services to be built), `/livez` is 200 so an
 * orchestrator does not restart it, `/readyz` and `/health` are 503 (`/health` in its
 * contract's shape: the database is down), and every other path 503 `service_unavailable`
 * with Retry-After. Binding it first also finds a taken port at once (exit 71).
 */
export async function listenWhileWaiting(options: {
  setting: string;
  host: string;
  port: number;
  state: () => WaitingState;
  /** `/health`'s fields besides status and database (environment, version, providers). */
  healthFields: () => Record<string, unknown>;
}): Promise<WaitingListener> {
  const send = (res: ServerResponse, answer: ProbeAnswer) =>
    res
      .writeHead(answer.status, { 'content-type': 'application/json; charset=utf-8' })
      .end(JSON.stringify(answer.body));
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    const { phase, database } = options.state();
    if (req.method === 'GET' && path === '/livez')
      return send(res, livenessAnswer('gateway', phase));
    if (req.method === 'GET' && path === '/readyz') {
      return send(res, readinessAnswer('gateway', phase, { database }));
    }
    if (req.method === 'GET' && path === '/health') {
      // Still 503 once the database answers: until the gateway listens, nothing is served.
      const body = {
        status: 'unavailable',
        database,
        ...options.healthFields(),
        ...errorBody(
          ErrorCode.ServiceUnavailable,
          database === 'down' ? 'The database is unreachable' : 'The gateway is starting',
        ),
      };
      return send(res, { status: 503, body });
    }
    res.setHeader('retry-after', '5');
    send(res, {
      status: 503,
      body: {
        ...errorBody(
          ErrorCode.ServiceUnavailable,
          database === 'down'
            ? 'The gateway is waiting for its database; retry'
            : 'The gateway is starting; retry',
        ),
      },
    });
  };
  const server = createServer(handle);
  server.keepAliveTimeout = 1_000;
  server.requestTimeout = 10_000;
  try {
    await listen(server, options.port, options.host);
  } catch (error) {
    throw listenFailure(error, options.setting, `${options.host}:${options.port}`);
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}
