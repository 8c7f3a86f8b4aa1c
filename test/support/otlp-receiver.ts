import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';

/** One span as the receiver keeps it (OTLP/JSON fields, attributes flattened). */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  /** OTLP's SpanKind number: 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  /** OTLP's status code: 0 unset, 1 ok, 2 error. */
  statusCode: number;
}

interface OtlpValue {
  stringValue?: string;
  intValue?: string | number;
  doubleValue?: number;
  boolValue?: boolean;
}
interface OtlpAttribute {
  key: string;
  value: OtlpValue;
}

const flatten = (attributes: OtlpAttribute[] = []) =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ??
        (value.intValue !== undefined ? Number(value.intValue) : undefined) ??
        value.doubleValue ??
        value.boolValue ??
        '',
    ]),
  );

/**
 * A stand-in for an OpenTelemetry collector's OTLP/HTTP receiver, for tests: `POST /v1/traces`
 * with an ExportTraceServiceRequest in the OTLP/JSON encoding (`Content-Type:
 * application/json`, optionally gzip-encoded), answered 200 with an empty
 * ExportTraceServiceResponse `{}`, as the OTLP specification says. Trace and span ids are
 * lowercase hex in OTLP/JSON (not protobuf JSON's base64). Protobuf bodies are answered 415
 * (the service exports JSON only); a body that is not such a request, 400 with a Status.
 * Spec: opentelemetry-proto docs/specification.md, "OTLP/HTTP" and "JSON Protobuf Encoding".
 */
export class OtlpReceiver {
  readonly spans: ReceivedSpan[] = [];
  readonly requests: Array<{ path: string; contentType: string }> = [];
  private server: Server | undefined;

  get url(): string {
    const { port } = this.server!.address() as AddressInfo;
    return `http://127.0.0.1:${port}`;
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const contentType = (req.headers['content-type'] ?? '').split(';')[0].trim();
        this.requests.push({ path: req.url ?? '', contentType });
        const answer = (status: number, body: unknown) =>
          res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
        if (req.method !== 'POST' || req.url !== '/v1/traces') {
          return answer(404, { code: 5, message: 'not found' });
        }
        if (contentType !== 'application/json') {
          return answer(415, { code: 3, message: `unsupported content type ${contentType}` });
        }
        try {
          let body = Buffer.concat(chunks);
          if (req.headers['content-encoding'] === 'gzip') body = gunzipSync(body);
          this.accept(JSON.parse(body.toString('utf8')));
          answer(200, {});
        } catch (error) {
          answer(400, { code: 3, message: (error as Error).message });
        }
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) =>
      this.server ? this.server.close(() => resolve()) : resolve(),
    );
  }

  /** The spans of one trace. */
  trace(traceId: string): ReceivedSpan[] {
    return this.spans.filter((span) => span.traceId === traceId);
  }

  private accept(request: {
    resourceSpans?: Array<{
      resource?: { attributes?: OtlpAttribute[] };
      scopeSpans?: Array<{ spans?: Array<Record<string, unknown>> }>;
    }>;
  }): void {
    if (!Array.isArray(request.resourceSpans)) throw new Error('resourceSpans missing');
    for (const resource of request.resourceSpans) {
      const service = String(flatten(resource.resource?.attributes)['service.name'] ?? '');
      for (const scope of resource.scopeSpans ?? []) {
        for (const span of scope.spans ?? []) {
          const traceId = String(span.traceId ?? '');
          const spanId = String(span.spanId ?? '');
          if (!/^[0-9a-f]{32}$/.test(traceId) || !/^[0-9a-f]{16}$/.test(spanId)) {
            throw new Error(`ids not hex: ${traceId} ${spanId}`);
          }
          this.spans.push({
            service,
            traceId,
            spanId,
            parentSpanId: String(span.parentSpanId ?? ''),
            name: String(span.name),
            kind: Number(span.kind ?? 0),
            attributes: flatten(span.attributes as OtlpAttribute[]),
            statusCode: Number((span.status as { code?: number } | undefined)?.code ?? 0),
          });
        }
      }
    }
  }
}
