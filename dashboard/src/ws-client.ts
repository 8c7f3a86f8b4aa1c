// A minimal graphql-ws client (subprotocol `graphql-transport-ws`): connection_init / ack,
// subscribe / next / error / complete, ping / pong, and reconnection with backoff. Subscriptions
// outlive sockets: after every reconnect they are sent again, and `onConnected` lets the app
// refetch whatever changed while the socket was down.

import type { GraphQLErrorBody } from './api.js';

export interface ExecutionResult<T> {
  data?: T | null;
  errors?: GraphQLErrorBody[];
}

export interface Sink<T> {
  next(result: ExecutionResult<T>): void;
  error?(errors: GraphQLErrorBody[]): void;
  complete?(): void;
}

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface WsClientOptions {
  url: string;
  /** Sent as the connection_init payload (read on every connect, so a new token is used). */
  connectionPayload: () => Record<string, unknown>;
  /** After every connection_ack; `reconnected` is false for the first one. */
  onConnected?: (reconnected: boolean) => void;
  onStateChange?: (state: ConnectionState) => void;
  /** The server refused the credentials (4401 / 4403): reconnecting would not help. */
  onAuthFailure?: (reason: string) => void;
}

interface Operation {
  query: string;
  variables: Record<string, unknown>;
  sink: Sink<unknown>;
}

type Message =
  | { type: 'connection_ack'; payload?: unknown }
  | { type: 'ping'; payload?: unknown }
  | { type: 'pong'; payload?: unknown }
  | { type: 'next'; id: string; payload: ExecutionResult<unknown> }
  | { type: 'error'; id: string; payload: GraphQLErrorBody[] }
  | { type: 'complete'; id: string };

const ACK_TIMEOUT_MS = 10_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const AUTH_CLOSE_CODES = new Set([4401, 4403]);

export class GraphQLWsClient {
  private socket: WebSocket | null = null;
  private readonly operations = new Map<string, Operation>();
  private nextId = 1;
  private acknowledged = false;
  private everConnected = false;
  private attempt = 0;
  private stopped = true;
  private reconnectTimer: ReturnType<typeof setTimeout> | null = null;
  private ackTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly onOnline = () => {
    if (!this.stopped && this.reconnectTimer !== null) this.reconnectNow();
  };

  constructor(private readonly options: WsClientOptions) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.attempt = 0;
    this.everConnected = false;
    window.addEventListener('online', this.onOnline);
    this.connect();
  }

  /** Closes the socket for good and forgets every subscription. */
  stop(): void {
    this.stopped = true;
    window.removeEventListener('online', this.onOnline);
    this.clearTimers();
    this.operations.clear();
    const socket = this.socket;
    this.socket = null;
    this.acknowledged = false;
    if (socket && socket.readyState <= WebSocket.OPEN) socket.close(1000, 'Normal Closure');
    this.setState('closed');
  }

  /** Starts a subscription (now if connected, otherwise at the next ack); returns its cancel. */
  subscribe<T>(query: string, variables: Record<string, unknown>, sink: Sink<T>): () => void {
    const id = String(this.nextId++);
    this.operations.set(id, { query, variables, sink: sink as Sink<unknown> });
    if (this.acknowledged) this.sendSubscribe(id);
    return () => {
      if (!this.operations.delete(id)) return;
      if (this.acknowledged) this.send({ type: 'complete', id });
    };
  }

  private connect(): void {
    this.setState(this.everConnected ? 'reconnecting' : 'connecting');
    let socket: WebSocket;
    try {
      socket = new WebSocket(this.options.url, 'graphql-transport-ws');
    } catch {
      this.scheduleReconnect();
      return;
    }
    this.socket = socket;
    this.acknowledged = false;

    socket.addEventListener('open', () => {
      if (this.socket !== socket) return;
      this.send({ type: 'connection_init', payload: this.options.connectionPayload() });
      this.ackTimer = setTimeout(() => {
        // No ack in time: 4408 is what the protocol uses for an init timeout.
        if (this.socket === socket && !this.acknowledged) socket.close(4408, 'Ack timeout');
      }, ACK_TIMEOUT_MS);
    });

    socket.addEventListener('message', (event: MessageEvent) => {
      if (this.socket !== socket) return;
      let message: Message;
      try {
        message = JSON.parse(String(event.data)) as Message;
      } catch {
        socket.close(4400, 'Invalid message');
        return;
      }
      this.handle(message);
    });

    socket.addEventListener('close', (event: CloseEvent) => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.acknowledged = false;
      this.clearTimers();
      if (this.stopped) return;
      if (AUTH_CLOSE_CODES.has(event.code)) {
        this.stopped = true;
        this.setState('closed');
        this.options.onAuthFailure?.(event.reason || 'Unauthorized');
        return;
      }
      this.scheduleReconnect();
    });
    // 'error' is always followed by 'close', which does the work.
  }

  private handle(message: Message): void {
    switch (message.type) {
      case 'connection_ack': {
        if (this.ackTimer !== null) clearTimeout(this.ackTimer);
        this.ackTimer = null;
        this.acknowledged = true;
        this.attempt = 0;
        const reconnected = this.everConnected;
        this.everConnected = true;
        this.setState('connected');
        for (const id of this.operations.keys()) this.sendSubscribe(id);
        this.options.onConnected?.(reconnected);
        return;
      }
      case 'ping':
        this.send({ type: 'pong' });
        return;
      case 'pong':
        return;
      case 'next':
        this.operations.get(message.id)?.sink.next(message.payload);
        return;
      case 'error': {
        const op = this.operations.get(message.id);
        this.operations.delete(message.id);
        op?.sink.error?.(Array.isArray(message.payload) ? message.payload : []);
        return;
      }
      case 'complete': {
        const op = this.operations.get(message.id);
        this.operations.delete(message.id);
        op?.sink.complete?.();
        return;
      }
    }
  }

  private sendSubscribe(id: string): void {
    const op = this.operations.get(id);
    if (!op) return;
    this.send({ type: 'subscribe', id, payload: { query: op.query, variables: op.variables } });
  }

  private send(message: Record<string, unknown>): void {
    if (this.socket?.readyState === WebSocket.OPEN) this.socket.send(JSON.stringify(message));
  }

  private scheduleReconnect(): void {
    this.setState('reconnecting');
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** this.attempt);
    this.attempt += 1;
    // Full jitter on the upper half, so many tabs do not reconnect in lockstep.
    const wait = delay / 2 + Math.random() * (delay / 2);
    this.reconnectTimer = setTimeout(() => this.reconnectNow(), wait);
  }

  private reconnectNow(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    this.reconnectTimer = null;
    if (!this.stopped) this.connect();
  }

  private clearTimers(): void {
    if (this.reconnectTimer !== null) clearTimeout(this.reconnectTimer);
    if (this.ackTimer !== null) clearTimeout(this.ackTimer);
    this.reconnectTimer = null;
    this.ackTimer = null;
  }

  private setState(state: ConnectionState): void {
    this.options.onStateChange?.(state);
  }
}

/** The gateway's graphql-ws endpoint on this page's host. */
export function graphqlWsUrl(): string {
  return (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/graphql';
}
