import type { IncomingMessage, Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { getOperationAST, GraphQLError, type ExecutionResult, type GraphQLSchema } from 'graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Logger } from 'pino';
import { environmentOf, type Services } from '../container';
import { merchantContext, type MerchantContext, type Principal } from '../context/request-context';
import { DomainError, ErrorCode } from '../domain/errors';
import { hashSecret } from '../crypto/secret-hash';
import { formatGraphQLError } from './graphql/errors';
import { graphqlDocumentCache, type DocumentCache } from './graphql/document-cache';
import { cookieValue, sameOrigin, SESSION_COOKIE } from './dashboard/cookies';
import type { DepositEvents } from './subscriptions/deposit-event-hub';
import { SharedSubscriptionExecution } from './subscriptions/shared-execution';
import { randomUlid } from '../domain/ids';
import { SocketRegistry, WS_CLOSE, type OpenSocket } from './ws-sockets';
import { CredentialWatch } from './ws-credentials';
import { hostileVariables } from './nul-characters';
import type { AddressLimiter } from './address-limit';
import { closeRefusedConnection } from './ws-connect-refusal';
import { clientAddressResolver } from './client-address';
import { boundCloseReasons, CLOSE_GRACE_MS, closeThenTerminate } from './ws-close';
import { assertAddressAllowed } from './key-restrictions';
import { assertBrowserOrigin, foreignOrigin, ownOriginOf } from './browser-origins';
import type { NotificationHub } from '../db/notification-hub';

type ConnectionExtra = Record<PropertyKey, unknown> & {
  principal?: Principal;
  /** Built with `principal` when the socket authenticates; every subscription's context. */
  requestContext?: MerchantContext;
  /** Set once authenticated: what the credential checks and caps know of this socket. */
  open?: OpenSocket;
};

/** Server pings every socket this often; one that has not answered by the next ping is dropped. */
export const KEEP_ALIVE_MS = 30_000;

/** An operation's `error` message: the domain error inside decides its shape, as over HTTP. */
function refusal(code: ErrorCode, message: string): GraphQLError {
  return new GraphQLError(message, { originalError: new DomainError(code, message) });
}

/** What a query or mutation sent over the socket gets; the socket stays open. */
function subscriptionsOnly(operation: string): GraphQLError {
  return refusal(
    ErrorCode.InvalidParameter,
    `The websocket carries subscriptions only; send this ${operation} with HTTP POST /graphql`,
  );
}

/**
 * graphql-ws on the gateway's HTTP server at `/graphql`. The client authenticates in
 * `connectionParams.authorization` ("Bearer ..."); a bad key closes the socket with 4401.
 * Only subscriptions run here: queries and mutations belong on HTTP, where the rate limit and
 * idempotency apply. A socket whose credential ends (revoked key or client secret, dashboard
 * session signed out or expired) is closed, on every gateway (`notifications`: the LISTEN).
 */
export function attachGraphQLWebSocket(options: {
  server: Server;
  schema: GraphQLSchema;
  orm: MikroORM;
  services: Services;
  log: FastifyBaseLogger;
  depositEvents?: DepositEvents;
  keepAliveMs?: number;
  /** The process's LISTEN, for revocations; without it sockets are only checked at connect. */
  notifications?: NotificationHub;
  /** Failed authentications per client address, shared with HTTP (none: not counted). */
  limiter?: AddressLimiter;
  /** Counts a key's 403 against its per-minute limit, as HTTP does (the answer stays 4403). */
  countRefusal?: (principal: Principal) => Promise<unknown>;
  /** Parsed and validated documents, shared with HTTP (none: a cache of its own). */
  documents?: DocumentCache;
}): { start(): Promise<void>; close(): Promise<void>; connections(): number } {
  const wss = new WebSocketServer({
    server: options.server,
    path: '/graphql',
    maxPayload: 64 * 1024,
  });
  // Before graphql-ws's own listener, so it only ever sees the bounded close.
  wss.on('connection', boundCloseReasons);
  const format = formatGraphQLError(options.log);
  const { config, clock } = options.services;
  const deployment = { environment: environmentOf(config), clock };
  const clientAddress = clientAddressResolver(config.TRUST_PROXY);
  const own = ownOriginOf(config);
  const sockets = new SocketRegistry(
    {
      socketsPerCredential: config.WS_MAX_SOCKETS_PER_KEY,
      subscriptionsPerSocket: config.WS_MAX_SUBSCRIPTIONS_PER_SOCKET,
      subscriptionsPerCredential: config.WS_MAX_SUBSCRIPTIONS_PER_KEY,
    },
    clock,
  );
  const credentialWatch = options.notifications
    ? new CredentialWatch({
        notifications: options.notifications,
        orm: options.orm,
        sockets,
        clock,
        // Fastify's logger is the pino instance the gateway was built with.
        log: options.log as unknown as Logger,
        recheckMs: config.WS_CREDENTIAL_RECHECK_SECONDS * 1000,
      })
    : undefined;
  // The same rules as over HTTP: limits, and introspection refused in production.
  const documents =
    options.documents ?? graphqlDocumentCache(options.schema, config.ONRAMP_ENV === 'production');

  /**
   * The dashboard's socket: its session cookie came with the upgrade request, and its CSRF
   * token in `connectionParams`. A page on another site could make the browser send the
   * cookie, so the Origin must be this host as well.
   */
  const dashboardPrincipal = async (request: IncomingMessage, csrf: string) => {
    if (!sameOrigin(request.headers)) {
      throw new DomainError(ErrorCode.Unauthorized, 'Cross-site dashboard socket refused');
    }
    const token = cookieValue(request.headers, SESSION_COOKIE);
    const session = await options.services.dashboardSessions.resume(
      options.orm.em.fork(),
      token,
      csrf,
    );
    // resume() accepted the token, so it is defined; its hash is the session's id.
    return {
      principal: session.principal,
      sessionId: hashSecret(token!),
      expiresAt: session.expiresAt,
    };
  };

  /** What a bearer credential leaves to check later: a client secret's hash and its expiry. */
  const bearerPrincipal = async (header: unknown) => {
    const authorization = typeof header === 'string' ? header : undefined;
    const principal = await options.services.auth.authenticate(
      options.orm.em.fork(),
      authorization,
    );
    if (principal.kind !== 'client_secret') return { principal };
    // authenticate() accepted "Bearer oc_...": the token is the rest of the header.
    const token = authorization!.trim().slice('Bearer '.length);
    const { expiresAt } = principal as { expiresAt?: Date };
    return { principal, clientSecretHash: hashSecret(token), expiresAt };
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
        const address = clientAddress(ctx.extra.request);
        const dashboard = header === undefined && typeof csrf === 'string';
        const text = dashboard ? cookieValue(ctx.extra.request.headers, SESSION_COOKIE) : header;
        const place = dashboard ? ('session_cookie' as const) : ('connection_params' as const);
        const presented = typeof text === 'string' ? { place, credential: text } : undefined;
        let principal: Principal | undefined;
        try {
          // Past its address's limit, the credential about to be looked up is refused first.
          options.limiter?.assertNotRefused(address, presented);
          const credential = dashboard
            ? await dashboardPrincipal(ctx.extra.request, csrf as string)
            : await bearerPrincipal(header);
          principal = credential.principal;
          if (presented) options.limiter?.remember(address, presented);
          assertAddressAllowed(credential.principal, address);
          // One context for the socket: its credential is fixed for the socket's life.
          const context = merchantContext(
            credential.principal,
            deployment,
            'sessionId' in credential ? 'dashboard_session' : undefined,
          );
          // The upgrade's Origin, as over HTTP: a page of another site may use only a client
          // secret its merchant allows there (a dashboard socket is same-origin already).
          assertBrowserOrigin(context, foreignOrigin(ctx.extra.request.headers, own), own);
          const socket = ctx.extra.socket;
          // The socket may have gone while the credential was read: then nothing to track.
          if (socket.readyState !== socket.OPEN) return false;
          const refused = sockets.refuseSocket(credential.principal);
          if (refused) {
            closeThenTerminate(socket, WS_CLOSE.tooManySockets, refused);
            return false;
          }
          const open: OpenSocket = {
            ...credential,
            socket,
            subscriptions: () => Object.keys(ctx.subscriptions).length,
            close: (code, reason) => closeThenTerminate(socket, code, reason),
          };
          socket.once('close', () => sockets.remove(open));
          sockets.add(open);
          // Closed on registration: its credential ended while it was being read.
          if (socket.readyState !== socket.OPEN) return false;
          ctx.extra.principal = credential.principal;
          ctx.extra.requestContext = context;
          ctx.extra.open = open;
          return true;
        } catch (error) {
          return closeRefusedConnection(error, {
            socket: ctx.extra.socket,
            address,
            principal,
            limiter: options.limiter,
            countRefusal: options.countRefusal,
            log: options.log,
          });
        }
      },
      onSubscribe: (ctx, _id, payload) => {
        const checked = documents.check(payload.query);
        if ('errors' in checked) return [...checked.errors];
        const operation = getOperationAST(checked.document, payload.operationName)?.operation;
        if (operation !== undefined && operation !== 'subscription') {
          return [subscriptionsOnly(operation)];
        }
        const hostile = hostileVariables(payload.variables ?? null);
        if (hostile) return [refusal(ErrorCode.InvalidParameter, hostile)];
        const refused = ctx.extra.open && sockets.refuseSubscription(ctx.extra.open);
        if (refused) {
          return [refusal(ErrorCode.RateLimited, refused)];
        }
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
          requestContext: ctx.extra.requestContext,
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
    /** Starts the LISTEN on revocations (before the first socket arrives). */
    start: async () => {
      await credentialWatch?.start();
    },
    close: async () => {
      await credentialWatch?.stop();
      sockets.clear();
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
