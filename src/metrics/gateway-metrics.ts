import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { Gauge, type Registry } from 'prom-client';
import { registerDepositsGauge } from './deposits';
import { registerHttpMetrics, type RequestObserver } from './http';
import { createRegistry } from './registry';

export interface GatewayMetrics {
  registry: Registry;
  observeRequest: RequestObserver;
  /** Tells the websocket gauge where to count open sockets (set once graphql-ws is attached). */
  countWebSockets(count: () => number): void;
}

/** The gateway's `/metrics`: process defaults, request latency, deposits, graphql-ws sockets. */
export function createGatewayMetrics(options: { orm: MikroORM; log: Logger }): GatewayMetrics {
  const registry = createRegistry();
  const observeRequest = registerHttpMetrics(registry);
  registerDepositsGauge(registry, options.orm, options.log);
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
  };
}
