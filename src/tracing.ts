import type { Logger } from 'pino';
import type { Config } from './config';
import { tracesUrl } from './config-observability';
import { markTracingOn } from './lib/trace-context';
import { VERSION } from './version';

export interface Tracing {
  /** Sends the spans still waiting and stops (graceful shutdown, last). */
  shutdown(): Promise<void>;
}

/**
 * Starts OpenTelemetry tracing for this process when configured (OTEL_EXPORTER_OTLP_ENDPOINT
 * or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; docs/observability.md); otherwise returns null and
 * loads nothing: the API stays its no-op. Spans leave in batches (BatchSpanProcessor, tuned by
 * the standard OTEL_BSP_* variables) as OTLP/HTTP JSON; the W3C trace-context propagator reads
 * and writes `traceparent`. The SDK reads the standard sampler variables (OTEL_TRACES_SAMPLER,
 * default parent-based always-on) and the exporter its own (headers, timeout, compression).
 */
export async function startTracing(
  config: Config,
  process: 'gateway' | 'jobs',
  log: Logger,
): Promise<Tracing | null> {
  const url = tracesUrl(config);
  if (!url) return null;
  // Loaded only when on: a process without tracing never loads the SDK.
  const [
    { NodeTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { resourceFromAttributes },
    semconv,
    { W3CTraceContextPropagator },
  ] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
    import('@opentelemetry/semantic-conventions'),
    import('@opentelemetry/core'),
  ]);
  const provider = new NodeTracerProvider({
    resource: resourceFromAttributes({
      [semconv.ATTR_SERVICE_NAME]: config.OTEL_SERVICE_NAME ?? `onramp-${process}`,
      [semconv.ATTR_SERVICE_VERSION]: VERSION,
      'deployment.environment.name': config.ONRAMP_ENV,
    }),
    spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter({ url }))],
  });
  // The global tracer provider, the AsyncLocalStorage context manager, and W3C trace context
  // (`traceparent`/`tracestate`) as the only propagator: baggage is not read from callers.
  provider.register({ propagator: new W3CTraceContextPropagator() });
  markTracingOn();
  log.info({ traces_url: url }, 'tracing on: spans exported over OTLP/HTTP');
  return {
    shutdown: () =>
      provider.shutdown().catch((error: unknown) => {
        log.warn({ err: error }, 'spans not exported at shutdown');
      }),
  };
}
