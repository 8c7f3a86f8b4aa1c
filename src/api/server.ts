import { nameRequestSpans, requestTracingOptions } from './request-tracing';
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { errorBody, ErrorCode } from '../domain/errors';
import { environmentOf, type Services } from '../container';
import { merchantContext, type Principal } from '../context/request-context';
import { forbidden } from '../context/read-scope';
import { createApollo } from './graphql/apollo';
import { graphqlHttpHandler } from './graphql/http-handler';
import { graphqlDocumentCache } from './graphql/document-cache';
import { buildGraphQLSchema } from './graphql/schema';
import { requestContextOf } from './principal';
import { assertAddressAllowed, assertScopes } from './key-restrictions';
import { API_SCOPES } from '../domain/api-scopes';
import { countKeyRefusal, registerRateLimit, type PostgresRateLimitStore } from './rate-limit';
import { registerIdempotency } from './idempotency';
import { addSharedSchemas } from './rest/shared-schemas';
import { restRoutes } from './rest/routes';
import { openApiOptions } from './openapi/openapi-options';
import { validatorCompiler } from './validation';
import { refuseNulCharacters } from './nul-characters';
import { attachGraphQLWebSocket } from './ws';
import { dashboardRoutes } from './dashboard/dashboard.route';
import { referenceRoutes } from './reference/reference.route';
import { payerPageRoutes } from './rest/routes/resolution-links.route';
import { cookieValue, SESSION_COOKIE } from './dashboard/cookies';
import type { DepositEventHub } from './subscriptions/deposit-event-hub';
import type { NotificationHub } from '../db/notification-hub';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import {
  recheckPublicRoutes,
  type AddressLimiter,
  type PresentedCredential,
} from './address-limit';
import { edgeServerOptions, installErrorPath } from './http-edge';
import { PROBE_PATHS } from './probes/probe-paths';
import { probeRoutes } from './probes/probes.route';
import { assertBrowserOrigin, foreignOrigin, ownOriginOf, registerCors } from './browser-origins';

export interface GatewayOptions {
  orm: MikroORM;
  services: Services;
  logger: Logger;
  version: string;
  /** Live deposit events for graphql-ws subscriptions: started and stopped with the app. */
  depositEvents?: DepositEventHub;
  /** The process's LISTEN (its maker starts and stops it): key cache, rates, socket checks. */
  notifications?: NotificationHub;
  /** Request latency goes here; the registry is served by the internal listener. */
  metrics: GatewayMetrics;
  /** The shared counters: per API key here, per address through `limiter`. */
  rateLimitStore: PostgresRateLimitStore;
  limiter: AddressLimiter;
}

const isGraphQLRequest = (request: FastifyRequest): boolean =>
  request.url.split('?')[0] === '/graphql';

/** GraphQL and the routes marked `dashboardSession` take the dashboard's session cookie. */
const isSessionRoute = (request: FastifyRequest): boolean =>
  isGraphQLRequest(request) || request.routeOptions.config?.dashboardSession === true;

/**
 * The credential an authenticated route will look up, and where it was presented, exactly as
 * `contextOf` picks it: the address limiter is asked about THAT credential.
 */
const presentedOf = (request: FastifyRequest): PresentedCredential | undefined => {
  const authorization = request.headers.authorization;
  if (authorization !== undefined) return { place: 'authorization', credential: authorization };
  const session = cookieValue(request.headers, SESSION_COOKIE);
  return session && isSessionRoute(request)
    ? { place: 'session_cookie', credential: session }
    : undefined;
};

/** Builds the gateway: REST `/v1`, GraphQL over HTTP and graphql-ws, one error model each. */
export async function buildGateway(options: GatewayOptions) {
  const { orm, services } = options;
  const { metrics, limiter } = options;
  const production = services.config.ONRAMP_ENV === 'production';
  const app = Fastify({
    ...edgeServerOptions(options.logger, services.config.TRUST_PROXY),
    ...requestTracingOptions(),
  }).withTypeProvider<TypeBoxTypeProvider>();
  nameRequestSpans(app as unknown as FastifyInstance);

  app.setValidatorCompiler(validatorCompiler);
  addSharedSchemas(app as unknown as FastifyInstance);
  installErrorPath(app as unknown as FastifyInstance, { limiter, isGraphQL: isGraphQLRequest });

  const deployment = { environment: environmentOf(services.config), clock: services.clock };
  const keyLimit = {
    store: options.rateLimitStore,
    perMinute: services.config.RATE_LIMIT_PER_MINUTE,
  };
  /** Counts a key's 403 against its limit; a count the store cannot take leaves the 403. */
  const countRefusal = (principal: Principal, reply?: FastifyReply) =>
    countKeyRefusal(keyLimit, principal, reply).catch((error: unknown) => {
      options.logger.warn({ err: error }, 'refused request not counted against its key');
      return null;
    });
  const own = ownOriginOf(services.config);
  /**
   * The request's context, built once: from a bearer key; or, for GraphQL and the routes marked
   * `dashboardSession` only, the dashboard's session cookie together with its CSRF token (the
   * cookie alone grants nothing: another site can make a browser send it, but cannot read the
   * token).
   */
  const contextOf = async (request: FastifyRequest) => {
    const session = cookieValue(request.headers, SESSION_COOKIE);
    if (request.headers.authorization === undefined && session && isSessionRoute(request)) {
      const csrf = request.headers['x-csrf-token'];
      const resumed = await services.dashboardSessions.resume(
        request.em,
        session,
        typeof csrf === 'string' ? csrf : '',
      );
      return merchantContext(resumed.principal, deployment, 'dashboard_session');
    }
    const principal = await services.auth.authenticate(request.em, request.headers.authorization);
    return merchantContext(principal, deployment);
  };

  // SIGTERM: requests already running finish; one arriving on a kept-alive connection after
  // that is told to go elsewhere (a load balancer retries it on another gateway).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Latency by route pattern (never the raw URL: ids would make a series each). Callback style,
  // like the other hooks that never wait: no promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
    done();
  });

  app.addHook('onRequest', async (request, reply) => {
    const probe = PROBE_PATHS.has(request.routeOptions.url ?? '');
    // Probes answer to the end: /livez 200, /readyz 503 (phase stopping) take it out of rotation.
    if (closing && !probe) {
      return reply
        .code(503)
        .headers({ connection: 'close', 'retry-after': '1' })
        .send(errorBody(ErrorCode.ServiceUnavailable, 'The gateway is shutting down; retry'));
    }
    const publicRoute = request.routeOptions.config?.public === true;
    // An address past its limit of failed authentications is refused before any lookup. A
    // public route's credential (a sign-in's key, a bank signature, a payer's link) is its own
    // to read, never exempt; it is asked again when the body is in (preHandler below).
    // The probes stay cheap and always answer: load balancers and orchestrators call them.
    const presented = publicRoute ? undefined : presentedOf(request);
    if (request.routeOptions.url && !probe) {
      limiter.assertNotRefused(request.ip, presented);
    }
    request.em = orm.em.fork();
    if (publicRoute || !request.routeOptions.url) return;
    // A CORS preflight carries no credential; @fastify/cors (below) answers it.
    if (request.method === 'OPTIONS') return;
    request.requestContext = await contextOf(request);
    request.principal = request.requestContext.principal;
    if (presented) limiter.remember(request.ip, presented);
    try {
      // Default deny: a client secret reaches only routes that allow it.
      if (
        request.principal.kind === 'client_secret' &&
        !request.routeOptions.config?.clientSecret
      ) {
        throw forbidden();
      }
      // A page of another site: only a client secret its merchant allows there (docs/api.md
      // "Browsers"); a secret key is refused, never revoked.
      assertBrowserOrigin(request.requestContext, foreignOrigin(request.headers, own), own);
      // A key's limits, after it authenticated (401 first): its addresses, then the route's
      // scopes (none listed: only `all`), so no handler has to remember them.
      assertAddressAllowed(request.principal, request.ip);
      assertScopes(request.principal, request.routeOptions.config?.scopes);
    } catch (refusal) {
      // A 403 costs the key a request like any other (429 once past its limit).
      throw (await countRefusal(request.principal, reply)) ?? refusal;
    }
  });

  // A public route reads its credential after onRequest ran (maybe long after): asked again.
  recheckPublicRoutes(app as unknown as FastifyInstance, limiter);

  // After the authentication hook: the real call's answer depends on its principal.
  await registerCors(app as unknown as FastifyInstance, own);

  app.addHook('preValidation', (request, _reply, done) => {
    try {
      refuseNulCharacters(request);
    } catch (error) {
      return done(error as Error);
    }
    done();
  });

  // The same options as `npm run openapi` (docs/openapi.json), so both documents agree.
  await app.register(swagger, openApiOptions(options.version));
  await registerRateLimit(app, keyLimit);

  // Root hooks: every POST route, /graphql included, honours Idempotency-Key.
  registerIdempotency(app, { idempotency: services.idempotency });
  // Sandbox routes register nothing in production: /v1/sandbox/* answers 404 there.
  for (const routes of restRoutes(services, options.version)) await app.register(routes);
  await app.register(
    probeRoutes(services, options.version, () => (closing ? 'stopping' : 'running')),
  );
  await app.register(dashboardRoutes(services, countRefusal));
  await app.register(payerPageRoutes(services, limiter));
  // /docs and /graphiql: on in the sandbox, off in production unless the operator turns them on.
  await app.register(referenceRoutes(services.config));
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  const schema = await buildGraphQLSchema();
  // One parse and validation per distinct document, whichever transport brings it.
  const documents = graphqlDocumentCache(schema, production);
  const apollo = createApollo(schema, {
    production,
    documents,
    log: app.log,
    plugins: [fastifyApolloDrainPlugin(app as unknown as FastifyInstance)],
  });
  await apollo.start();
  const graphqlHandler = graphqlHttpHandler(apollo, async (request) => ({
    em: request.em,
    principal: request.principal!,
    requestContext: requestContextOf(request),
    services,
    requestId: request.id,
  }));
  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    // Client secrets and key scopes are checked per root field by the GraphQL guard.
    config: { clientSecret: true, scopes: API_SCOPES },
    schema: { hide: true },
    handler: graphqlHandler,
  });

  let websocket: ReturnType<typeof attachGraphQLWebSocket> | undefined;
  let keyRevocations: Awaited<ReturnType<typeof services.auth.watchKeyRevocations>> | undefined;
  let rateMemory: Awaited<ReturnType<typeof services.rates.watchPublications>> | undefined;
  const { depositEvents, notifications } = options;
  app.addHook('onReady', async () => {
    // API key lookups come from memory only while this gateway hears every revocation.
    if (notifications) {
      keyRevocations = await services.auth.watchKeyRevocations(notifications);
      // Quotes from memory, read again on each publication's NOTIFY.
      rateMemory = await services.rates.watchPublications({
        notifications,
        em: orm.em,
        log: options.logger.child({ component: 'rates' }),
      });
    }
    // Listening (and placed in the event stream) before the first subscriber can arrive.
    await depositEvents?.start();
    websocket = attachGraphQLWebSocket({
      server: app.server,
      schema,
      orm,
      services,
      log: app.log,
      depositEvents,
      notifications,
      limiter,
      countRefusal,
      documents,
    });
    await websocket.start();
    metrics.countWebSockets(() => websocket?.connections() ?? 0);
  });
  app.addHook('preClose', async () => {
    await websocket?.close();
  });
  app.addHook('onClose', async () => {
    await keyRevocations?.stop();
    await rateMemory?.stop();
    await depositEvents?.stop();
  });

  return app as unknown as FastifyInstance;
}
