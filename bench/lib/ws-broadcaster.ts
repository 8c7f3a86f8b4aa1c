/**
 * The subscriptions baseline's server, in its own process: a bare `ws` server that speaks just
 * enough graphql-transport-ws (connection_ack, pong) for ws-subscribers.ts, and broadcasts a
 * `next` message to every socket at a fixed rate. Each message carries its send time as
 * `updatedAt`, so the clients time it exactly as they time the gateway's. No database, no
 * GraphQL execution: the fan-out cost of the machine and `ws` alone.
 */
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export type BroadcasterCommand =
  | { type: 'listen' }
  | { type: 'subscribers' }
  /**
   * Sends `count` messages at `rate` per second. Message i: `depositId` is `${prefix}` padded
   * with i/2 to `idLength`, status PENDING_FX then SETTLED (so each id gets both, as a deposit
   * does); `pad` characters extra keep the size equal to the gateway's messages.
   */
  | {
      type: 'broadcast';
      rate: number;
      count: number;
      prefix: string;
      idLength: number;
      pad: number;
    }
  | { type: 'close' };

let wss: WebSocketServer | undefined;
const subscribed = new Set<WebSocket>();

function listen(): Promise<number> {
  return new Promise((resolve) => {
    wss = new WebSocketServer({ host: '127.0.0.1', port: 0, perMessageDeflate: false });
    wss.on('connection', (socket) => {
      socket.on('message', (data: Buffer) => {
        const message = JSON.parse(data.toString('utf8')) as { type: string };
        if (message.type === 'connection_init') {
          socket.send(JSON.stringify({ type: 'connection_ack' }));
        } else if (message.type === 'subscribe') {
          subscribed.add(socket);
        } else if (message.type === 'ping') {
          socket.send(JSON.stringify({ type: 'pong' }));
        }
      });
      socket.on('close', () => subscribed.delete(socket));
    });
    wss.on('listening', () => resolve((wss!.address() as AddressInfo).port));
  });
}

function message(i: number, prefix: string, idLength: number, pad: number): string {
  const depositId = `${prefix}${String(Math.floor(i / 2)).padStart(idLength - prefix.length, '0')}`;
  const update: Record<string, string> = {
    depositId,
    status: i % 2 === 0 ? 'PENDING_FX' : 'SETTLED',
    updatedAt: new Date().toISOString(),
  };
  if (pad > 0) update.pad = 'x'.repeat(pad);
  return JSON.stringify({ id: '1', type: 'next', payload: { data: { depositUpdated: update } } });
}

async function broadcast(
  command: Extract<BroadcasterCommand, { type: 'broadcast' }>,
): Promise<{ sent: number; bytes: number }> {
  const interval = 1000 / command.rate;
  const start = performance.now();
  let bytes = 0;
  for (let i = 0; i < command.count; i += 1) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const text = message(i, command.prefix, command.idLength, command.pad);
    bytes = Buffer.byteLength(text);
    for (const socket of subscribed) socket.send(text);
  }
  return { sent: command.count, bytes };
}

async function handle(command: BroadcasterCommand): Promise<unknown> {
  switch (command.type) {
    case 'listen':
      return listen();
    case 'subscribers':
      return subscribed.size;
    case 'broadcast':
      return broadcast(command);
    case 'close':
      for (const socket of wss?.clients ?? []) socket.terminate();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      return true;
  }
}

process.on('message', (m: { id: number; command: BroadcasterCommand }) => {
  handle(m.command).then(
    (result) => process.send!({ id: m.id, result }),
    (error: unknown) => process.send!({ id: m.id, error: String(error) }),
  );
});
process.on('disconnect', () => process.exit(0));
