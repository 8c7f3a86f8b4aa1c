import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/**
 * How a hostile receiver treats each connection:
 * - `silent`: accepts, reads the request, never answers;
 * - `never-read`: accepts and reads nothing of the request until `readAfterMs`, then reads it
 *   and stays silent (a paused socket cannot see its peer close: reading again shows whether
 *   the client let go);
 * - `headers-then-stall`: answers `200` headers announcing a body, then sends nothing;
 * - `drip`: answers `200` headers, then one body byte every 100 ms, for ever;
 * - `huge`: answers `200` with a 10 MB body, as fast as it can be taken;
 * - `keep-alive`: answers a complete `200` and keeps the connection open.
 */
export type Stall = 'silent' | 'never-read' | 'headers-then-stall' | 'drip' | 'huge' | 'keep-alive';

export interface ReceivedConnection {
  /** When this server accepted it (epoch ms); the attempt that opened it started before. */
  acceptedAt: number;
  /** When it closed (epoch ms), or null while it is open. */
  closedAt: number | null;
}

const HUGE_BYTES = 10 * 1024 * 1024;

/**
 * A raw TCP server on 127.0.0.1 that plays a hostile webhook receiver (node:net, so it can
 * stall where an HTTP server library would not let it). It records every connection it
 * accepted and when each closed, and never closes one itself: whatever closes is the client.
 */
export class StallingReceiver {
  readonly connections: ReceivedConnection[] = [];
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Set<NodeJS.Timeout>();

  constructor(
    readonly stall: Stall,
    private readonly readAfterMs = 0,
  ) {}

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as AddressInfo).port}/hooks`;
  }

  async start(): Promise<this> {
    const server = createServer({ pauseOnConnect: this.stall === 'never-read' }, (socket) =>
      this.accept(socket),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    this.server = server;
    return this;
  }

  /** Connections open right now, as the server counts them. */
  open(): Promise<number> {
    return new Promise((resolve, reject) =>
      this.server!.getConnections((error, count) => (error ? reject(error) : resolve(count))),
    );
  }

  async stop(): Promise<void> {
    for (const timer of this.timers) clearTimeout(timer);
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()) ?? resolve());
  }

  private accept(socket: Socket): void {
    const connection: ReceivedConnection = { acceptedAt: Date.now(), closedAt: null };
    this.connections.push(connection);
    this.sockets.add(socket);
    socket.on('error', () => undefined);
    socket.on('close', () => {
      connection.closedAt = Date.now();
      this.sockets.delete(socket);
    });
    if (this.stall === 'never-read') {
      const timer = setTimeout(() => socket.resume(), this.readAfterMs);
      this.timers.add(timer);
      return;
    }
    let head = '';
    const onData = (chunk: Buffer) => {
      head += chunk.toString('latin1');
      if (!head.includes('\r\n\r\n')) return;
      // The request's headers are in; its body is read and ignored from here on.
      socket.off('data', onData);
      socket.resume();
      this.answer(socket);
    };
    socket.on('data', onData);
  }

  private answer(socket: Socket): void {
    const write = (data: string | Buffer) => !socket.destroyed && socket.write(data);
    switch (this.stall) {
      case 'silent':
        return;
      case 'headers-then-stall':
        write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 1000\r\n\r\n');
        return;
      case 'drip': {
        write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ntransfer-encoding: chunked\r\n\r\n');
        const timer = setInterval(() => write('1\r\nx\r\n'), 100);
        this.timers.add(timer);
        socket.on('close', () => clearInterval(timer));
        return;
      }
      case 'huge': {
        write(
          `HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: ${HUGE_BYTES}\r\n\r\n`,
        );
        const chunk = Buffer.alloc(64 * 1024, 'x');
        let left = HUGE_BYTES;
        const pump = () => {
          while (left > 0) {
            left -= chunk.length;
            if (!write(chunk)) return void socket.once('drain', pump);
          }
        };
        pump();
        return;
      }
      case 'keep-alive':
        write('HTTP/1.1 200 OK\r\ncontent-type: text/plain\r\ncontent-length: 2\r\n\r\nok');
        return;
    }
  }
}
