import { collectDefaultMetrics, Registry } from 'prom-client';
import { registerBuildInfo } from './build-info';

/**
 * One registry per process (never prom-client's global one), with the Node.js process
 * defaults: CPU, resident memory, heap, event-loop lag, GC, open file descriptors, and
 * `onramp_build_info`. The service's own metrics start with `onramp_`; the defaults keep their
 * standard names (`process_cpu_seconds_total`, `nodejs_heap_size_used_bytes`), so the
 * dashboards and alerts written for any Node.js service read them unchanged.
 */
export function createRegistry(options: { commit?: string } = {}): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  registerBuildInfo(registry, options.commit);
  return registry;
}
