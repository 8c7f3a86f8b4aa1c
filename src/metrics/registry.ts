import { collectDefaultMetrics, Registry } from 'prom-client';

/** Every metric name starts with this (the process defaults too: onramp_process_resident_memory_bytes). */
export const METRIC_PREFIX = 'onramp_';

/**
 * One registry per process (never prom-client's global one), with the Node.js process
 * defaults: CPU, resident memory, heap, event-loop lag, GC, open file descriptors.
 */
export function createRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
  return registry;
}
