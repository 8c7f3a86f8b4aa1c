import { Histogram, type Registry } from 'prom-client';

/** Requests that matched no route share one label value, so scanners cannot blow up the series. */
export const UNMATCHED_ROUTE = 'unmatched';

export type RequestObserver = (
  method: string,
  route: string | undefined,
  statusCode: number,
  seconds: number,
) => void;

/**
 * `onramp_http_request_duration_seconds{method, route, status_code}`: the route is the
 * pattern (`/v1/deposits/:id`), never the raw URL.
 */
export function registerHttpMetrics(registry: Registry): RequestObserver {
  const duration = new Histogram({
    name: 'onramp_http_request_duration_seconds',
    help: 'Gateway HTTP requests: time to the response, by route pattern and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  // One labelled child per series, found by a string key: prom-client hashes the label object
  // on every observe otherwise. As bounded as the series are (methods, routes, statuses).
  const series = new Map<string, ReturnType<typeof duration.labels>>();
  return (method, route, statusCode, seconds) => {
    const key = `${method} ${statusCode} ${route ?? ''}`;
    let child = series.get(key);
    if (!child) {
      child = duration.labels(method, route ?? UNMATCHED_ROUTE, String(statusCode));
      series.set(key, child);
    }
    child.observe(seconds);
  };
}
