/**
 * A load generator in its own process (forked by load.ts), so the client's CPU is not the
 * measured process's. Keep-alive HTTP/1.1 over loopback. Open loop (`rate`): request i is due
 * at start + i/rate and its latency counts from then, so a slow server cannot hide its queue
 * (no coordinated omission). Closed loop (`rate` absent): `concurrency` requests always in
 * flight, as fast as the server answers (throughput).
 */
import { Agent, request } from 'node:http';

export interface RequestTemplate {
  method: string;
  path: string;
  headers?: Record<string, string>;
  /** JSON body; the text `{{n}}` anywhere in it becomes a number unique to this request. */
  body?: unknown;
}

export interface LoadSpec {
  baseUrl: string;
  requests: RequestTemplate[];
  durationMs: number;
  concurrency: number;
  rate?: number;
  /** Distinguishes the `{{n}}` of parallel workers. */
  worker: number;
}

export interface LoadResult {
  latenciesMs: number[];
  statuses: Record<string, number>;
  errors: number;
  /** Open loop: requests not sent because `concurrency` were already in flight. */
  skipped: number;
  elapsedMs: number;
  /** Response bodies of the first requests (for benchmarks that need ids back). */
  bodies: string[];
  /** This load process's own CPU time (user + system) over the run, in ms. */
  cpuMs: number;
}

const KEEP_BODIES = 50_000;

async function run(spec: LoadSpec): Promise<LoadResult> {
  const url = new URL(spec.baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: spec.concurrency });
  const result: LoadResult = {
    latenciesMs: [],
    statuses: {},
    errors: 0,
    skipped: 0,
    elapsedMs: 0,
    bodies: [],
    cpuMs: 0,
  };
  const cpuBefore = process.cpuUsage();
  let n = 0;
  let inFlight = 0;
  const start = performance.now();
  const end = start + spec.durationMs;

  const send = (due: number): Promise<void> => {
    const template = spec.requests[n % spec.requests.length];
    n += 1;
    const unique = `${spec.worker}${String(n).padStart(9, '0')}`;
    const body =
      template.body === undefined
        ? undefined
        : JSON.stringify(template.body).replaceAll('{{n}}', unique);
    inFlight += 1;
    return new Promise<void>((resolve) => {
      const req = request(
        {
          host: url.hostname,
          port: url.port,
          method: template.method,
          path: template.path.replaceAll('{{n}}', unique),
          agent,
          headers: {
            ...template.headers,
            ...(body === undefined
              ? {}
              : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) }),
          },
        },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('end', () => {
            result.latenciesMs.push(performance.now() - due);
            const key = String(res.statusCode);
            result.statuses[key] = (result.statuses[key] ?? 0) + 1;
            if (result.bodies.length < KEEP_BODIES) {
              result.bodies.push(Buffer.concat(chunks).toString('utf8'));
            }
            inFlight -= 1;
            resolve();
          });
        },
      );
      req.on('error', () => {
        result.errors += 1;
        inFlight -= 1;
        resolve();
      });
      if (body !== undefined) req.write(body);
      req.end();
    });
  };

  const pending = new Set<Promise<void>>();
  const track = (p: Promise<void>) => {
    pending.add(p);
    void p.then(() => pending.delete(p));
  };
  if (spec.rate) {
    const interval = 1000 / spec.rate;
    let i = 0;
    while (performance.now() < end) {
      const due = start + i * interval;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, Math.min(wait, 50)));
      if (performance.now() < due) continue;
      i += 1;
      if (inFlight >= spec.concurrency) result.skipped += 1;
      else track(send(due));
    }
  } else {
    const loop = async () => {
      while (performance.now() < end) await send(performance.now());
    };
    await Promise.all(Array.from({ length: spec.concurrency }, loop));
  }
  await Promise.all(pending);
  result.elapsedMs = performance.now() - start;
  const cpu = process.cpuUsage(cpuBefore);
  result.cpuMs = (cpu.user + cpu.system) / 1000;
  agent.destroy();
  return result;
}

process.once('message', (spec: LoadSpec) => {
  run(spec).then(
    (result) => process.send!(result, () => process.exit(0)),
    (error: unknown) => {
      process.stderr.write(`load worker failed: ${String(error)}\n`);
      process.exit(1);
    },
  );
});
