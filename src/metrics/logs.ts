import { Counter, type Registry } from 'prom-client';

/**
 * `onramp_log_lines_dropped_total`: log lines the process dropped because standard output was
 * not taking them (LOG_BUFFER_MAX_BYTES were already waiting; src/logger.ts). Read from the log
 * output at scrape time, so a scrape costs the logging path nothing. Anything above 0 means the
 * log reader (a supervisor, a container runtime, a shipper) stalled or fell behind.
 */
export function registerLogMetrics(registry: Registry, output: { droppedLines(): number }): void {
  new Counter({
    name: 'onramp_log_lines_dropped_total',
    help: 'Log lines dropped because standard output was not taking them (LOG_BUFFER_MAX_BYTES waiting).',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(output.droppedLines());
    },
  });
}
