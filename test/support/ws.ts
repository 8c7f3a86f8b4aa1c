import { createClient, type Client } from 'graphql-ws';
import WebSocket from 'ws';

/** A graphql-ws client over a real websocket, authenticated the way merchants do it. */
export function wsClient(httpUrl: string, authorization: string | undefined): Client {
  return createClient({
    url: `${httpUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: authorization === undefined ? {} : { authorization },
    retryAttempts: 0,
    lazy: true,
  });
}

/** Runs one operation to completion; resolves with the result or rejects with the close/error. */
export function wsExecute<T = unknown>(
  client: Client,
  query: string,
): Promise<{ data?: T; errors?: unknown[] }> {
  return new Promise((resolve, reject) => {
    let result: { data?: T; errors?: unknown[] } | undefined;
    client.subscribe<T>(
      { query },
      {
        next: (value) => (result = value as { data?: T; errors?: unknown[] }),
        error: reject,
        complete: () =>
          result ? resolve(result) : reject(new Error('completed without a result')),
      },
    );
  });
}
