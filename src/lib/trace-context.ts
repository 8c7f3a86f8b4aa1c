import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
} from '@opentelemetry/api';

/**
 * Tracing as the services see it: OpenTelemetry's API only. Until `src/tracing.ts` registers
 * an SDK (OTEL_EXPORTER_OTLP_ENDPOINT set), every call here is the API's no-op: no span is
 * recorded, no trace context is read or written, nothing is stored with a deposit.
 *
 * A deposit carries its trace context (the W3C `traceparent` of the request that recorded it)
 * in its row, so the runner's work on it (settlement, FX, payout, webhooks) joins that trace.
 */
const tracer = trace.getTracer('onramp');

let on = false;

/** Called once by src/tracing.ts when an SDK is registered. */
export function markTracingOn(): void {
  on = true;
}

export function tracingIsOn(): boolean {
  return on;
}

/** The `traceparent` of the span active now, to store with what it created; null when none. */
export function activeTraceParent(): string | null {
  if (!on) return null;
  const active = context.active();
  if (!trace.getSpan(active)?.spanContext().traceId) return null;
  const carrier: Record<string, string> = {};
  propagation.inject(active, carrier);
  return carrier.traceparent ?? null;
}

/**
 * Runs `work` in a span that joins the trace of `traceParent` (a stored `traceparent`); with
 * none, or tracing off, runs it untraced. The span ends when `work` settles, with an error
 * status if it threw.
 */
export async function inStoredTrace<T>(
  name: string,
  traceParent: string | null | undefined,
  attributes: Attributes,
  work: (span: Span | undefined) => Promise<T>,
  kind: SpanKind = SpanKind.INTERNAL,
): Promise<T> {
  if (!on || !traceParent) return work(undefined);
  const parent = propagation.extract(ROOT_CONTEXT, { traceparent: traceParent });
  return tracer.startActiveSpan(name, { kind, attributes }, parent, async (span) => {
    try {
      return await work(span);
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * Spans for each traced item of a batch (a settlement batch, a signing round): one per item
 * that carries a trace context, all started now, each ended by `end` with its own attributes.
 * The items of a batch share its work (one transaction), so each span covers the whole batch.
 */
export function startBatchSpans(
  name: string,
  items: ReadonlyArray<{ id: string; traceParent: string | null }>,
  attributes: Attributes,
): BatchSpans {
  const spans = new Map<string, Span>();
  if (on) {
    for (const item of items) {
      if (!item.traceParent) continue;
      const parent = propagation.extract(ROOT_CONTEXT, { traceparent: item.traceParent });
      spans.set(item.id, tracer.startSpan(name, { attributes }, parent));
    }
  }
  const end = (id: string, more?: Attributes, failed?: unknown) => {
    const span = spans.get(id);
    if (!span) return;
    spans.delete(id);
    if (more) span.setAttributes(more);
    if (failed !== undefined) {
      span.recordException(failed as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: String((failed as Error).message) });
    }
    span.end();
  };
  const traceParentOf = (id: string) => {
    const span = spans.get(id);
    if (!span) return null;
    const carrier: Record<string, string> = {};
    propagation.inject(trace.setSpan(ROOT_CONTEXT, span), carrier);
    return carrier.traceparent ?? null;
  };
  return { end, endAll: () => [...spans.keys()].forEach((id) => end(id)), traceParentOf };
}

export interface BatchSpans {
  /** Ends the item's span (if it has one), with more attributes and, if it failed, the error. */
  end(id: string, attributes?: Attributes, failed?: unknown): void;
  /** Ends every span still open. */
  endAll(): void;
  /** The `traceparent` of the item's span, for work that continues it elsewhere; null if none. */
  traceParentOf(id: string): string | null;
}
