/**
 * A process holding many graphql-transport-ws subscribers (forked by ws-fanout.ts), so the
 * clients' CPU is not the benchmark's. The protocol is spoken directly over `ws` (connection_init,
 * subscribe, next, ping/pong): the same client code listens to the gateway and to the bare
 * broadcaster of the baseline, so the two latencies differ only by the server.
 *
 * Every `next` is timed: receive time (this machine's clock) minus the message's
 * `depositUpdated.updatedAt` (the change's time, set by the same machine's clock). Each
 * subscriber also counts what it got by `depositId:status`, to check exactly-once and order.
 */
import WebSocket from 'ws';

export interface ConnectCommand {
  type: 'connect';
  url: string;
  count: number;
  /** Sent as `connectionParams.authorization`. */
  authorization?: string;
  query: string;
  /** Connections opened at once. */
  parallel: number;
}

export type SubscriberCommand =
  | ConnectCommand
  /** Resolves once every subscriber has received `key` (`depositId:status`), or times out. */
  | { type: 'waitFor'; key: string; timeoutMs: number }
  /** Resolves once every subscriber has at least `count` recorded messages, or times out. */
  | { type: 'waitForCount'; count: number; timeoutMs: number }
  /** Forgets everything received so far and starts recording. */
  | { type: 'reset' }
  | { type: 'report' }
  | { type: 'close' };

export interface SubscriberReport {
  subscribers: number;
  /** Latencies (ms) of every recorded message, by the message's status. */
  latenciesByStatus: Record<string, number[]>;
  /** Messages each subscriber recorded (distinct `depositId:status`). */
  distinctPerSubscriber: number[];
  duplicates: number;
  /** A SETTLED that came before its deposit's PENDING_FX. */
  outOfOrder: number;
  errors: string[];
  /** Sockets that closed while they should have been open. */
  closed: number;
  /** One raw `next` message as received (for the baseline's message size). */
  sample: string | null;
}

interface Subscriber {
  socket: WebSocket;
  seen: Set<string>;
  open: boolean;
}

const subscribers: Subscriber[] = [];
let latenciesByStatus: Record<string, number[]> = {};
let duplicates = 0;
let outOfOrder = 0;
let closed = 0;
let closing = false;
const errors: string[] = [];
let sample: string | null = null;

function connectOne(command: ConnectCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(command.url, 'graphql-transport-ws', { perMessageDeflate: false });
    const subscriber: Subscriber = { socket, seen: new Set(), open: false };
    const timer = setTimeout(
      () => reject(new Error('subscriber not acknowledged in 20 s')),
      20_000,
    );
    socket.on('open', () => {
      socket.send(
        JSON.stringify({
          type: 'connection_init',
          payload: command.authorization ? { authorization: command.authorization } : {},
        }),
      );
    });
    socket.on('message', (data: Buffer) => {
      const receivedAt = Date.now();
      const text = data.toString('utf8');
      const message = JSON.parse(text) as {
        type: string;
        payload?: {
          data?: { depositUpdated?: { depositId: string; status: string; updatedAt: string } };
          errors?: unknown;
        };
      };
      switch (message.type) {
        case 'next': {
          const update = message.payload?.data?.depositUpdated;
          if (!update) {
            errors.push(JSON.stringify(message.payload).slice(0, 300));
            return;
          }
          const key = `${update.depositId}:${update.status}`;
          if (subscriber.seen.has(key)) {
            duplicates += 1;
            return;
          }
          if (
            update.status === 'SETTLED' &&
            !subscriber.seen.has(`${update.depositId}:PENDING_FX`)
          ) {
            outOfOrder += 1;
          }
          subscriber.seen.add(key);
          (latenciesByStatus[update.status] ??= []).push(receivedAt - Date.parse(update.updatedAt));
          sample ??= text;
          return;
        }
        case 'connection_ack':
          subscriber.open = true;
          subscribers.push(subscriber);
          socket.send(
            JSON.stringify({ id: '1', type: 'subscribe', payload: { query: command.query } }),
          );
          clearTimeout(timer);
          resolve();
          return;
        case 'ping':
          socket.send(JSON.stringify({ type: 'pong' }));
          return;
        case 'error':
          errors.push(JSON.stringify(message.payload).slice(0, 300));
          return;
        default:
      }
    });
    socket.on('error', (error) => {
      errors.push(String(error));
      clearTimeout(timer);
      reject(error);
    });
    socket.on('close', (code) => {
      if (subscriber.open && !closing) {
        closed += 1;
        errors.push(`closed with ${code}`);
      }
      subscriber.open = false;
    });
  });
}

async function connect(command: ConnectCommand): Promise<number> {
  let next = 0;
  const worker = async () => {
    while (next < command.count) {
      next += 1;
      await connectOne(command);
    }
  };
  await Promise.all(Array.from({ length: Math.min(command.parallel, command.count) }, worker));
  return subscribers.length;
}

async function until(check: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

function reset(): void {
  latenciesByStatus = {};
  duplicates = 0;
  outOfOrder = 0;
  errors.length = 0;
  for (const s of subscribers) s.seen.clear();
}

function report(): SubscriberReport {
  return {
    subscribers: subscribers.length,
    latenciesByStatus,
    distinctPerSubscriber: subscribers.map((s) => s.seen.size),
    duplicates,
    outOfOrder,
    errors: errors.slice(0, 20),
    closed,
    sample,
  };
}

async function close(): Promise<void> {
  closing = true;
  await Promise.all(
    subscribers.map(
      (s) =>
        new Promise<void>((resolve) => {
          if (s.socket.readyState === WebSocket.CLOSED) return resolve();
          s.socket.once('close', () => resolve());
          s.socket.close(1000);
          setTimeout(() => {
            s.socket.terminate();
            resolve();
          }, 2_000).unref();
        }),
    ),
  );
  subscribers.length = 0;
}

async function handle(command: SubscriberCommand): Promise<unknown> {
  switch (command.type) {
    case 'connect':
      return connect(command);
    case 'waitFor':
      return until(() => subscribers.every((s) => s.seen.has(command.key)), command.timeoutMs);
    case 'waitForCount':
      return until(() => subscribers.every((s) => s.seen.size >= command.count), command.timeoutMs);
    case 'reset':
      reset();
      return true;
    case 'report':
      return report();
    case 'close':
      await close();
      return true;
  }
}

process.on('message', (message: { id: number; command: SubscriberCommand }) => {
  handle(message.command).then(
    (result) => process.send!({ id: message.id, result }),
    (error: unknown) => process.send!({ id: message.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
