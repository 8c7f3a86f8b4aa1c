import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, specifiedRules, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services';
import type { Principal } from '../services/auth.service';
import { DomainError, ErrorCode } from '../domain/errors';
import { formatGraphQLError } from './graphql/errors';
import { queryLimitsRule } from './graphql/limits';
import { DocumentCache } from './graphql/document-cache';
import { cookieValue, sameOrigin, SESSION_COOKIE } from './dashboard/cookies';
import type { DepositEvents } from './subscriptions/deposit-event-hub';
import { SharedSubscriptionExecution } from './subscriptions/shared-execution';
import { randomUlid } from '../domain/ids';

type ConnectionExtra = Record<PropertyKey, unknown> & { principal?: Principal };

/** Server pings every socket this often; one that has not answered by the next ping is dropped. */
export const KEEP_ALIVE_MS = 30_000;
/** How long a socket we close may take to answer the close frame before it is cut. */
const CLOSE_GRACE_MS = 2_000;

/**
 * Closes with a code the client can read, then cuts the connection if it does not answer: a
 * client that stopped reading never sees the close frame, and ws would wait 30 s for it.
 */
function closeThenTerminate(socket: WebSocket, code: number, reason: string): void {
  if (socket.readyState === socket.CLOSED) return;
  socket.close(code, reason.slice(0, 120));
  setTimeout(() => socket.terminate(), CLOSE_GRACE_MS).unref();
}

/**
 * graphql-ws on the gateway's HTTP server at `/graphql`. The client authenticates in
 * `connectionParams.authorization` ("Bearer ..."); a bad key closes the socket with 4401.
 */
export function attachGraphQLWebSocket(options: {
  server: Server;
  schema: GraphQLSchema;
  orm: MikroORM;
  services: Services;
  log: FastifyBaseLogger;
  depositEvents?: DepositEvents;
  keepAliveMs?: number;
}): { close(): Promise<void>; connections(): number } {
  const wss = new WebSocketServer({
    server: options.server,
    path: '/graphql',
    maxPayload: 64 * 1024,
  });
  const format = formatGraphQLError(options.log);
  const documents = new DocumentCache(options.schema, [...specifiedRules, queryLimitsRule()], {
    maxEntries: 500,
    maxQueryLength: 4096,
  });

  /**
   * The dashboard's socket: its session cookie came with the upgrade request, and its CSRF
   * token in `connectionParams`. A page on another site could make the browser send the
   * cookie, so the Origin must be this host as well.
   */
  const dashboardPrincipal = async (request: IncomingMessage, csrf: string) => {
    if (!sameOrigin(request.headers)) {
      throw new DomainError(ErrorCode.Unauthorized, 'Cross-site dashboard socket refused');
    }
    const session = await options.services.dashboardSessions.resume(
      options.orm.em.fork(),
      cookieValue(request.headers, SESSION_COOKIE),
      csrf,
    );
    return session.principal;
  };

  /** A `next` message's payload for a result: errors formatted as over HTTP. */
  const present = (result: ExecutionResult): ExecutionResult =>
    'errors' in result && result.errors
      ? { ...result, errors: result.errors.map((e) => format(e.toJSON(), e) as GraphQLError) }
      : result;
  // One execution per change for all subscribers asking the same thing, written straight to
  // the sockets (see the class).
  const sharedExecution = new SharedSubscriptionExecution({ present });

  const disposable = useServer<Record<string, unknown>, ConnectionExtra>(
    {
      schema: options.schema,
      subscribe: sharedExecution.subscribe,
      onConnect: async (ctx) => {
        const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        const csrf = ctx.connectionParams?.csrfToken;
        try {
          ctx.extra.principal =
            header === undefined && typeof csrf === 'string'
              ? await dashboardPrincipal(ctx.extra.request, csrf)
              : await options.services.auth.authenticate(
                  options.orm.em.fork(),
                  typeof header === 'string' ? header : undefined,
                );
          return true;
        } catch (error) {
          if (error instanceof DomainError && error.code === ErrorCode.Unauthorized) {
            ctx.extra.socket.close(4401, `Unauthorized: ${error.message}`.slice(0, 120));
            return false;
          }
          options.log.error({ err: error }, 'websocket authentication failed unexpectedly');
          ctx.extra.socket.close(1011, 'Service unavailable');
          return false;
        }
      },
      onSubscribe: (_ctx, _id, payload) => {
        const checked = documents.check(payload.query);
        if ('errors' in checked) return [...checked.errors];
        return {
          schema: options.schema,
          document: checked.document,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
      },
      context: (ctx, id) => {
        const socket = ctx.extra.socket;
        const value = {
          em: options.orm.em.fork(),
          principal: ctx.extra.principal,
          services: options.services,
          requestId: `ws_${randomUlid()}`,
          depositEvents: options.depositEvents,
          closeConnection: (code: number, reason: string) =>
            closeThenTerminate(socket, code, reason),
        };
        sharedExecution.registerOutlet(value, {
          id,
          send: (message, done) => {
            if (socket.readyState !== socket.OPEN) return done();
            socket.send(message, () => done());
          },
        });
        return value;
      },
      onNext: (_ctx, _id, _payload, _args, result) => present(result),
      onError: (_ctx, _id, _payload, errors) =>
        errors.map((e) => {
          // graphql-ws wraps what a subscription's stream threw; the domain error inside decides.
          const cause = e.originalError instanceof DomainError ? e.originalError : e;
          const formatted = format(e.toJSON(), cause);
          return new GraphQLError(formatted.message, { extensions: formatted.extensions });
        }),
    },
    wss,
    options.keepAliveMs ?? KEEP_ALIVE_MS,
  );

  return {
    connections: () => wss.clients.size,
    close: async () => {
      // Sockets that do not answer the close frame (stopped reading) must not hold up shutdown.
      const cut = setTimeout(() => {
        for (const client of wss.clients) client.terminate();
      }, CLOSE_GRACE_MS);
      try {
        await disposable.dispose();
        await new Promise<void>((resolve) => wss.close(() => resolve()));
      } finally {
        clearTimeout(cut);
      }
    },
  };
}
