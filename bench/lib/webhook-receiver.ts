/**
 * The webhooks benchmark's receiver, in its own process (forked by webhooks.bench.ts): a
 * node:http server that answers 200 at once and records, per request, its receive time (the
 * end of the body), path, `webhook-id` and the head of the body (the envelope's `event` and
 * `created_at` come first). It verifies a sample of signatures with `standardwebhooks`.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export type ReceiverCommand =
  | { type: 'listen' }
  | { type: 'reset' }
  | { type: 'count' }
  | { type: 'report' }
  /** One request's body as received (a real envelope, for the baseline's size). */
  | { type: 'sampleBody' }
  /** Verifies the sampled requests, with the secret of the endpoint at each path. */
  | { type: 'verify'; secrets: Record<string, string> }
  | { type: 'close' };

export interface Received {
  /** Receive time, ms since the epoch (with fractions). */
  at: number;
  path: string;
  id: string;
  event: string;
  createdAt: string;
}

/** Every this many requests, one is kept whole for signature verification. */
const SAMPLE_EVERY = 25;

let received: Array<{ at: number; path: string; id: string; head: string }> = [];
let samples: Array<{ path: string; headers: IncomingHttpHeaders; body: string }> = [];
let total = 0;

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const at = performance.timeOrigin + performance.now();
    const body =
      chunks.length === 1 ? chunks[0].toString('utf8') : Buffer.concat(chunks).toString();
    total += 1;
    received.push({
      at,
      path: req.url ?? '',
      id: String(req.headers['webhook-id'] ?? ''),
      head: body.slice(0, 200),
    });
    if (total % SAMPLE_EVERY === 0)
      samples.push({ path: req.url ?? '', headers: req.headers, body });
    res.writeHead(200, { 'content-length': '0' }).end();
  });
});
server.keepAliveTimeout = 60_000;

const field = (head: string, name: string) =>
  new RegExp(`"${name}":"([^"]*)"`).exec(head)?.[1] ?? '';

function verify(secrets: Record<string, string>) {
  let verified = 0;
  const failures: string[] = [];
  for (const s of samples) {
    const secret = secrets[s.path];
    if (!secret) continue; // not a webhook (the baseline's requests)
    try {
      new Webhook(secret).verify(s.body, {
        'webhook-id': String(s.headers['webhook-id']),
        'webhook-timestamp': String(s.headers['webhook-timestamp']),
        'webhook-signature': String(s.headers['webhook-signature']),
      });
      verified += 1;
    } catch (error) {
      failures.push(`${s.path}: ${String(error)}`);
    }
  }
  return { verified, failed: failures.length, failures: failures.slice(0, 5) };
}

async function handle(command: ReceiverCommand): Promise<unknown> {
  switch (command.type) {
    case 'listen':
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return (server.address() as AddressInfo).port;
    case 'reset':
      received = [];
      samples = [];
      return true;
    case 'count':
      return received.length;
    case 'report':
      return received.map((r): Received => ({
        at: r.at,
        path: r.path,
        id: r.id,
        event: field(r.head, 'event'),
        createdAt: field(r.head, 'created_at'),
      }));
    case 'verify':
      return verify(command.secrets);
    case 'sampleBody':
      return samples[0]?.body ?? null;
    case 'close':
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      return true;
  }
}

process.on('message', (m: { id: number; command: ReceiverCommand }) => {
  handle(m.command).then(
    (result) => process.send!({ id: m.id, result }),
    (error: unknown) => process.send!({ id: m.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
