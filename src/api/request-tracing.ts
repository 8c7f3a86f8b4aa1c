import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { tracingIsOn } from '../lib/trace-context';

const tracer = trace.getTracer('onramp');

/**
 * With tracing on, every request to the gateway's API listener (REST, GraphQL over HTTP, bank
 * notifications) runs in a SERVER span, a child of the caller's `traceparent` when it sent
 * one. Fastify's `serverFactory` wraps the whole request: the span is the active context of
 * every hook, handler and resolver, so what they record (a deposit's trace context) is the
 * request's. The request and response emitters are bound to it, so the body's events keep it.
 * With tracing off this returns nothing and Fastify builds its usual server: nothing runs per
 * request.
 */
export function requestTracingOptions(): Pick<FastifyServerOptions, 'serverFactory'> {
  if (!tracingIsOn()) return {};
  return {
    serverFactory: (handler) =>
      createServer((req: IncomingMessage, res: ServerResponse) => {
        const parent = propagation.extract(ROOT_CONTEXT, req.headers);
        const span = tracer.startSpan(
          `${req.method ?? 'HTTP'}`,
          {
            kind: SpanKind.SERVER,
            attributes: {
              'http.request.method': req.method ?? '',
              'url.path': (req.url ?? '/').split('?')[0],
            },
          },
          parent,
        );
        const active = trace.setSpan(parent, span);
        context.bind(active, req);
        context.bind(active, res);
        const end = () => {
          span.setAttribute('http.response.status_code', res.statusCode);
          if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
          span.end();
        };
        res.once('finish', end);
        res.once('close', () => {
          if (!res.writableFinished) span.setAttribute('http.response.aborted', true);
          if (span.isRecording()) end();
        });
        context.with(active, () => handler(req, res));
      }),
  };
}

/** Names each request span by its route pattern (`POST /v1/sandbox/deposits`), never the raw URL. */
export function nameRequestSpans(app: FastifyInstance): void {
  if (!tracingIsOn()) return;
  app.addHook('onRequest', (request, _reply, done) => {
    const route = request.routeOptions.url;
    const span = trace.getSpan(context.active());
    if (span && route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    done();
  });
}
