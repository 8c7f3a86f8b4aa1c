import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

export interface GraphQLErrorShape {
  message: string;
  extensions?: { code?: string };
}

/** One operation on a socket: what it received and the `error` message, if any. */
export interface Operation {
  results: Array<{ data?: unknown; errors?: GraphQLErrorShape[] }>;
  errors: GraphQLErrorShape[];
  completed: boolean;
  /** Sends `complete` for it (unsubscribes). */
  stop(): void;
}

/** A connected (not lazy) graphql-ws socket whose close code and reason tests can await. */
export interface TestSocket {
  client: Client;
  /** Resolves once the server acknowledged the connection; rejects if it closed first. */
  connected: Promise<void>;
  closed: Promise<{ code: number; reason: string; at: number }>;
  isClosed(): boolean;
  run(query: string, variables?: Record<string, unknown>): Operation;
}

/**
 * Opens a socket at once: with a bearer `authorization`, or the dashboard's way (cookie and
 * Origin on the upgrade request, CSRF token in connectionParams).
 */
export function openSocket(
  httpUrl: string,
  auth: { authorization?: string; cookie?: string; csrfToken?: string; origin?: string },
): TestSocket {
  const headers: Record<string, string> = {};
  if (auth.cookie) headers.cookie = auth.cookie;
  if (auth.origin) headers.origin = auth.origin;
  let closedAt: { code: number; reason: string; at: number } | undefined;
  let onClosed: (value: { code: number; reason: string; at: number }) => void = () => undefined;
  const closed = new Promise<{ code: number; reason: string; at: number }>((resolve) => {
    onClosed = resolve;
  });
  const client = createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: class extends WebSocket {
      constructor(address: string, protocols?: string | string[]) {
        super(address, protocols, { headers });
      }
    },
    connectionParams: {
      ...(auth.authorization ? { authorization: auth.authorization } : {}),
      ...(auth.csrfToken ? { csrfToken: auth.csrfToken } : {}),
    },
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
  });
  const connected = new Promise<void>((resolve, reject) => {
    client.on('connected', () => resolve());
    client.on('closed', (event) => {
      const { code, reason } = event as { code: number; reason: string };
      closedAt ??= { code, reason: String(reason), at: Date.now() };
      onClosed(closedAt);
      reject(new Error(`closed before connecting: ${code} ${String(reason)}`));
    });
  });
  connected.catch(() => undefined);
  return {
    client,
    connected,
    closed,
    isClosed: () => closedAt !== undefined,
    run(query, variables) {
      const operation: Operation = {
        results: [],
        errors: [],
        completed: false,
        stop: () => undefined,
      };
      operation.stop = client.subscribe(
        { query, variables },
        {
          next: (value) => operation.results.push(value as Operation['results'][number]),
          error: (error) => {
            if (Array.isArray(error)) operation.errors.push(...(error as GraphQLErrorShape[]));
            else operation.errors.push({ message: String((error as Error).message ?? error) });
          },
          complete: () => (operation.completed = true),
        },
      );
      return operation;
    },
  };
}
