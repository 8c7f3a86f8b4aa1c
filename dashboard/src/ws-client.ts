// The dashboard's live socket: graphql-ws's own client (protocol, pings, re-subscribing after a
// reconnect), with what the page adds around it: the connection state for the "Live" badge, a
// callback after every connect (the app refetches what changed while the socket was down),
// retries without end and an immediate one when the browser comes back online, and a stop at a
// refused credential (4401 / 4403), where reconnecting with the same cookie cannot help.

import { createClient, type Client } from 'graphql-ws/client';
import type { GraphQLErrorBody } from './api.js';

export interface ExecutionResult<T> {
  data?: T | null;
  errors?: GraphQLErrorBody[];
}

export interface Sink<T> {
  next(result: ExecutionResult<T>): void;
  /** The server ended the subscription with GraphQL errors (not called for a dropped socket). */
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

const ACK_TIMEOUT_MS = 10_000;
const LAZY_CLOSE_MS = 15_000;
const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 30_000;
const AUTH_CLOSE_CODES = new Set([4401, 4403]);

interface CloseLike {
  code: number;
  reason: string;
}

function isClose(value: unknown): value is CloseLike {
  return typeof value === 'object' && value !== null && 'code' in value && 'reason' in value;
}

export class GraphQLWsClient {
  private client: Client | null = null;
  private stopped = true;
  private everConnected = false;
  /** Cancels the pending waits (timers and 'online' listeners) when the client stops. */
  private readonly pendingWaits = new Set<() => void>();

  constructor(private readonly options: WsClientOptions) {}

  /** Opens the socket (graphql-ws connects lazily: at the first subscription). */
  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.everConnected = false;
    this.setState('connecting');
    this.client = createClient({
      url: this.options.url,
      connectionParams: () => this.options.connectionPayload(),
      connectionAckWaitTimeout: ACK_TIMEOUT_MS,
      // The socket opens at the first subscription; when the server ends the last one with an
      // error, it stays open while the page subscribes again (5 s later, deposits.ts).
      lazyCloseTimeout: LAZY_CLOSE_MS,
      retryAttempts: Infinity,
      retryWait: (retries) => this.waitBeforeRetry(retries),
      // graphql-ws gives up on 4401 itself; 4403 is final here too. Everything else is retried,
      // including the browser's bare `error` event of an unreachable server (graphql-ws's
      // default would give up on that).
      shouldRetry: (problem) => !(isClose(problem) && AUTH_CLOSE_CODES.has(problem.code)),
      on: {
        connecting: (isRetry) => {
          if (!this.stopped)
            this.setState(isRetry || this.everConnected ? 'reconnecting' : 'connecting');
        },
        connected: () => {
          if (this.stopped) return;
          const reconnected = this.everConnected;
          this.everConnected = true;
          this.setState('connected');
          this.options.onConnected?.(reconnected);
        },
        closed: (event) => this.onClosed(event),
      },
    });
  }

  /** Closes the socket for good and forgets every subscription. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    // A reconnect wait is dropped, never resolved: graphql-ws would open a socket after it.
    for (const cancelWait of this.pendingWaits) cancelWait();
    this.pendingWaits.clear();
    void this.client?.dispose();
    this.client = null;
    this.setState('closed');
  }

  /** Starts a subscription (after start()), kept across reconnects; returns its cancel. */
  subscribe<T>(query: string, variables: Record<string, unknown>, sink: Sink<T>): () => void {
    let cancelled = false;
    let cancel: () => void = () => undefined;
    let attempt = 0;
    const run = (): void => {
      const client = this.client;
      if (cancelled || this.stopped || !client) return;
      cancel = client.subscribe<T>(
        { query, variables },
        {
          next: (result) => {
            attempt = 0;
            sink.next(result as ExecutionResult<T>);
          },
          error: (error) => {
            if (cancelled || this.stopped || client !== this.client) return;
            // GraphQL errors: the server ended this subscription; the caller decides.
            if (Array.isArray(error)) return sink.error?.(error as GraphQLErrorBody[]);
            // A refused credential is the app's to handle (onAuthFailure).
            if (isClose(error) && AUTH_CLOSE_CODES.has(error.code)) return;
            // A close graphql-ws does not retry (1011, 4429, a protocol error): subscribe again
            // after the same backoff as any dropped socket (releasing graphql-ws's hold first).
            cancel();
            void this.wait(this.backoffMs(attempt++)).then(run);
          },
          complete: () => {
            if (!cancelled && !this.stopped) sink.complete?.();
          },
        },
      );
    };
    run();
    return () => {
      cancelled = true;
      cancel();
    };
  }

  private onClosed(event: unknown): void {
    if (this.stopped) return;
    if (isClose(event) && AUTH_CLOSE_CODES.has(event.code)) {
      this.stop();
      this.options.onAuthFailure?.(event.reason || 'Unauthorized');
      return;
    }
    this.setState('reconnecting');
  }

  /** graphql-ws waits on this before each reconnect. */
  private waitBeforeRetry(retries: number): Promise<void> {
    return this.wait(this.backoffMs(retries));
  }

  /** Resolves after `ms`, or at once when the browser comes back online; never after stop(). */
  private wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const cancelWait = () => {
        window.removeEventListener('online', finish);
        clearTimeout(timer);
        this.pendingWaits.delete(cancelWait);
      };
      const finish = () => {
        cancelWait();
        resolve();
      };
      const timer = setTimeout(finish, ms);
      window.addEventListener('online', finish);
      this.pendingWaits.add(cancelWait);
    });
  }

  /** Exponential, with full jitter on the upper half so many tabs do not reconnect in lockstep. */
  private backoffMs(attempt: number): number {
    const delay = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
    return delay / 2 + Math.random() * (delay / 2);
  }

  private setState(state: ConnectionState): void {
    this.options.onStateChange?.(state);
  }
}

/** The gateway's graphql-ws endpoint on this page's host. */
export function graphqlWsUrl(): string {
  return (location.protocol === 'https:' ? 'wss:' : 'ws:') + '//' + location.host + '/graphql';
}
