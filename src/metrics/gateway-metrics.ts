import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { registerDepositsGauge } from './deposits';
import { registerHttpMetrics, type RequestObserver } from './http';
import { registerLogMetrics } from './logs';
import { createRegistry } from './registry';

/** How often the deposit gauge is counted unless told otherwise. */
export const DEPOSITS_REFRESH_MS = 15_000;

export interface GatewayMetrics {
  registry: Registry;
  observeRequest: RequestObserver;
  /** Tells the websocket gauge where to count open sockets (set once graphql-ws is attached). */
  countWebSockets(count: () => number): void;
  /** Counts deposits now instead of at the next tick of the timer. */
  refreshDeposits(): Promise<void>;
  /** Stops the deposit gauge's timer. */
  close(): void;
}

/**
 * The gateway's `/metrics` (on the internal listener): process defaults and build, request latency,
 * deposits, graphql-ws sockets. A scrape reads memory only; nothing in it queries the database.
 */
export function createGatewayMetrics(options: {
  orm: MikroORM;
  log: Logger;
  depositsRefreshMs?: number;
  /** The process's log output (src/logger.ts): its dropped lines become a counter. */
  logOutput?: { droppedLines(): number };
  /** ONRAMP_COMMIT, for `onramp_build_info` when the build did not record its commit. */
  commit?: string;
}): GatewayMetrics {
  const registry = createRegistry({ commit: options.commit });
  if (options.logOutput) registerLogMetrics(registry, options.logOutput);
  const observeRequest = registerHttpMetrics(registry);
  const deposits = registerDepositsGauge(
    registry,
    options.orm,
    options.log,
    options.depositsRefreshMs ?? DEPOSITS_REFRESH_MS,
  );
  let sockets: () => number = () => 0;
  new Gauge({
    name: 'onramp_graphql_ws_connections',
    help: 'Open graphql-ws sockets on this gateway.',
    registers: [registry],
    collect() {
      this.set(sockets());
    },
  });
  return {
    registry,
    observeRequest,
    countWebSockets: (count) => {
      sockets = count;
    },
    refreshDeposits: deposits.refresh,
    close: deposits.stop,
  };
}
