import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

/** What the receiver answers to its n-th request (1-based): a status, or 'hang' (never answers). */
/** The answer to the n-th request: a status, a status after a delay, or no answer at all. */
export type Behaviour = (n: number) => number | 'hang' | { status: number; afterMs: number };

/**
 * A real HTTP server that records every webhook it gets. It can answer any status, hang, or be
 * stopped and started again on the same port (a receiver that is down refuses connections).
 */
export class WebhookReceiver {
  readonly received: ReceivedWebhook[] = [];
  behaviour: Behaviour = () => 200;
  private server: Server | undefined;
  private port = 0;
  private readonly hanging = new Set<() => void>();

  get url(): string {
    return `http://127.0.0.1:${this.port}/hooks`;
  }

  async start(): Promise<this> {
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        this.received.push({
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          receivedAt: Date.now(),
        });
        const answer = this.behaviour(this.received.length);
        if (answer === 'hang') {
          this.hanging.add(() => res.destroy());
          return;
        }
        const answerWith = (status: number) =>
          res.writeHead(status, { 'content-type': 'text/plain' }).end('ok');
        if (typeof answer === 'number') answerWith(answer);
        else setTimeout(() => answerWith(answer.status), answer.afterMs);
      });
    });
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', resolve));
    this.port = (server.address() as AddressInfo).port;
    this.server = server;
    return this;
  }

  /** Stops listening (connections are refused until `start()` again, on the same port). */
  async stop(): Promise<void> {
    for (const release of this.hanging) release();
    this.hanging.clear();
    const server = this.server;
    this.server = undefined;
    if (!server) return;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** The envelopes received, parsed. */
  envelopes(): Array<{
    event: string;
    event_id: string;
    created_at: string;
    data: Record<string, unknown>;
  }> {
    return this.received.map((r) => JSON.parse(r.body));
  }
}

/** Verifies a delivery with the `standardwebhooks` package; throws when it does not verify. */
export function verifyWebhook(secret: string, received: ReceivedWebhook): unknown {
  return new Webhook(secret).verify(received.body, {
    'webhook-id': String(received.headers['webhook-id']),
    'webhook-timestamp': String(received.headers['webhook-timestamp']),
    'webhook-signature': String(received.headers['webhook-signature']),
  });
}

/**
 * Verifies a delivery signed at a moved (test) clock time: `standardwebhooks` checks the
 * timestamp against the real `Date.now()`, so only `Date` is pointed at that time meanwhile.
 */
export function verifyWebhookAt(secret: string, received: ReceivedWebhook): unknown {
  const at = Number(received.headers['webhook-timestamp']) * 1000;
  jest.useFakeTimers({
    now: at,
    doNotFake: [
      'hrtime',
      'nextTick',
      'performance',
      'queueMicrotask',
      'requestAnimationFrame',
      'cancelAnimationFrame',
      'requestIdleCallback',
      'cancelIdleCallback',
      'setImmediate',
      'clearImmediate',
      'setInterval',
      'clearInterval',
      'setTimeout',
      'clearTimeout',
    ],
  });
  try {
    return verifyWebhook(secret, received);
  } finally {
    jest.useRealTimers();
  }
}
