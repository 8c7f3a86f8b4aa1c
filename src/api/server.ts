import Fastify, {
  type FastifyBaseLogger,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import swagger from '@fastify/swagger';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { fastifyApolloHandler, fastifyApolloDrainPlugin } from '@as-integrations/fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import { errorBody, ErrorCode } from '../domain/errors';
import type { Services } from '../services';
import { forbidden } from '../services/auth.service';
import { mapError } from './error-mapping';
import { createApollo } from './graphql/apollo';
import type { GraphQLContext } from './graphql/context';
import { graphqlErrorBody } from './graphql/errors';
import { buildGraphQLSchema } from './graphql/schema';
import './principal';
import { registerRateLimit } from './rate-limit';
import { registerIdempotency } from './idempotency';
import { ErrorResponse } from './rest/schemas';
import { healthRoutes } from './rest/routes/health.route';
import { ratesRoutes } from './rest/routes/rates.route';
import { onrampRoutes } from './rest/routes/onramps.route';
import { bankNotificationRoutes } from './rest/routes/bank-notifications.route';
import { depositRoutes } from './rest/routes/deposits.route';
import { merchantRoutes } from './rest/routes/merchant.route';
import { withdrawalRoutes } from './rest/routes/withdrawals.route';
import { sandboxRoutes } from './rest/routes/sandbox.route';
import { validatorCompiler } from './validation';
import { refuseNulCharacters } from './nul-characters';
import { attachGraphQLWebSocket } from './ws';
import { dashboardRoutes } from './dashboard/dashboard.route';
import { cookieValue, SESSION_COOKIE } from './dashboard/cookies';
import type { DepositEventHub } from './subscriptions/deposit-event-hub';
import { createGatewayMetrics, type GatewayMetrics } from '../metrics/gateway-metrics';
import { metricsRoute } from './rest/routes/metrics.route';
import { ADMIN_GRAPHQL_PATH, registerAdminGraphQL } from './admin/admin.route';
import { randomUlid } from '../domain/ids';

export const BODY_LIMIT_BYTES = 64 * 1024;
const INCOMING_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

export interface GatewayOptions {
  orm: MikroORM;
  services: Services;
  logger: Logger;
  version: string;
  /** Live deposit events for graphql-ws subscriptions: started and stopped with the app. */
  depositEvents?: DepositEventHub;
  /** Served at `/metrics` (default: a fresh registry for this gateway). */
  metrics?: GatewayMetrics;
}

function isGraphQLRequest(request: FastifyRequest): boolean {
  const path = request.url.split('?')[0];
  return path === '/graphql' || path === ADMIN_GRAPHQL_PATH;
}

/**
 * One log line per request instead of Fastify's two: "request completed" (or "request
 * errored") carries the request too (method, url, remote address), and "incoming request" is
 * not written. Logging costs a gateway per request about as much as a deposit read's SQL does
 * (bench/notes/reads.md); a request that never completes still shows in the metrics.
 */
class OneLineRequestLogs extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    if (error) {
      reply.log.error(
        { req: request, res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    } else {
      reply.log.info(
        { req: request, res: reply, responseTime: reply.elapsedTime },
        'request completed',
      );
    }
  }
}

/** Builds the gateway: REST `/v1`, GraphQL over HTTP and graphql-ws, one error model each. */
export async function buildGateway(options: GatewayOptions) {
  const { orm, services } = options;
  const metrics = options.metrics ?? createGatewayMetrics({ orm, log: options.logger });
  const production = services.config.ONRAMP_ENV === 'production';
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    bodyLimit: BODY_LIMIT_BYTES,
    requestIdHeader: false,
    logController: new OneLineRequestLogs(),
    genReqId: (req) => {
      const incoming = req.headers['x-request-id'];
      return typeof incoming === 'string' && INCOMING_REQUEST_ID.test(incoming)
        ? incoming
        : `req_${randomUlid()}`;
    },
    routerOptions: { maxParamLength: 200 },
    // Our own 503 (below) answers requests that arrive while closing, in the API's error shape.
    return503OnClosing: false,
    ajv: { customOptions: { removeAdditional: false } },
  }).withTypeProvider<TypeBoxTypeProvider>();

  app.setValidatorCompiler(validatorCompiler);
  app.addSchema(ErrorResponse);

  app.setErrorHandler((error: FastifyError, request, reply) => {
    const mapped = mapError(error);
    if (mapped.unexpected) request.log.error({ err: error }, 'unexpected error');
    else if (mapped.status >= 500) request.log.warn({ err: error }, mapped.message);
    if (mapped.code === ErrorCode.RateLimited && !reply.hasHeader('retry-after')) {
      reply.header('retry-after', '60');
    }
    const body = isGraphQLRequest(request)
      ? graphqlErrorBody(mapped.code, mapped.message)
      : errorBody(mapped.code, mapped.message, mapped.details);
    return reply.code(mapped.status).type('application/json').send(body);
  });

  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(
        errorBody(ErrorCode.NotFound, `No route ${request.method} ${request.url.split('?')[0]}`),
      ),
  );

  /**
   * A bearer key; or, for GraphQL only, the dashboard's session cookie together with its CSRF
   * token (the cookie alone grants nothing: another site can make a browser send it, but
   * cannot read the token).
   */
  const principalOf = async (request: FastifyRequest) => {
    const session = cookieValue(request.headers, SESSION_COOKIE);
    if (request.headers.authorization === undefined && session && isGraphQLRequest(request)) {
      const csrf = request.headers['x-csrf-token'];
      const resumed = await services.dashboardSessions.resume(
        request.em,
        session,
        typeof csrf === 'string' ? csrf : '',
      );
      return resumed.principal;
    }
    return services.auth.authenticate(request.em, request.headers.authorization);
  };

  // SIGTERM: requests already running finish; one arriving on a kept-alive connection after
  // that is told to go elsewhere (a load balancer retries it on another gateway).
  let closing = false;
  app.addHook('preClose', async () => {
    closing = true;
  });

  // Latency by route pattern (never the raw URL: ids would make a series each).
  app.addHook('onResponse', async (request, reply) => {
    metrics.observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  app.addHook('onRequest', async (request, reply) => {
    reply.header('x-request-id', request.id);
    if (closing) {
      return reply
        .code(503)
        .headers({ connection: 'close', 'retry-after': '1' })
        .send(errorBody(ErrorCode.ServiceUnavailable, 'The gateway is shutting down; retry'));
    }
    request.em = orm.em.fork();
    if (request.routeOptions.config?.public || !request.routeOptions.url) return;
    if (request.routeOptions.config?.operator) {
      request.operator = await services.operatorTokens.authenticate(
        request.em,
        request.headers.authorization,
      );
      return;
    }
    request.principal = await principalOf(request);
    // Default deny: a client secret reaches only routes that allow it.
    if (request.principal.kind === 'client_secret' && !request.routeOptions.config?.clientSecret) {
      throw forbidden();
    }
  });

  app.addHook('preValidation', async (request) => refuseNulCharacters(request));

  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'NGN onramp API',
        version: options.version,
        description:
          'REST /v1 of the NGN-to-stablecoin onramp service. Errors: {"error": {"code", "message", "details"?}}.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'sk_test_ / sk_live_ secret key' },
        },
      },
      security: [{ bearer: [] }],
    },
  });
  await registerRateLimit(app, {
    orm,
    clock: services.clock,
    perMinute: services.config.RATE_LIMIT_PER_MINUTE,
  });

  // Root hooks: every POST route, /graphql included, honours Idempotency-Key.
  registerIdempotency(app, { idempotency: services.idempotency });
  await app.register(healthRoutes(services, options.version));
  await app.register(metricsRoute(metrics.registry));
  await app.register(ratesRoutes(services));
  await app.register(onrampRoutes(services));
  await app.register(bankNotificationRoutes(services));
  await app.register(depositRoutes(services));
  await app.register(merchantRoutes(services));
  await app.register(withdrawalRoutes(services));
  // Registers nothing in production: /v1/sandbox/* answers 404 there.
  await app.register(sandboxRoutes(services));
  await app.register(dashboardRoutes(services));
  app.get('/v1/openapi.json', { config: { public: true }, schema: { hide: true } }, async () =>
    app.swagger(),
  );

  const schema = await buildGraphQLSchema();
  const apollo = createApollo(schema, {
    production,
    log: app.log,
    plugins: [fastifyApolloDrainPlugin(app as unknown as FastifyInstance)],
  });
  await apollo.start();
  const graphqlHandler = fastifyApolloHandler<GraphQLContext>(apollo, {
    context: async (request) => ({
      em: request.em,
      principal: request.principal!,
      services,
      requestId: request.id,
    }),
  });
  app.route({
    method: ['GET', 'POST'],
    url: '/graphql',
    // Client secrets are checked per field by the GraphQL guard.
    config: { clientSecret: true },
    schema: { hide: true },
    handler: graphqlHandler,
  });

  await registerAdminGraphQL(app as unknown as FastifyInstance, { services, production });

  let websocket: ReturnType<typeof attachGraphQLWebSocket> | undefined;
  const { depositEvents } = options;
  app.addHook('onReady', async () => {
    // Listening (and placed in the event stream) before the first subscriber can arrive.
    await depositEvents?.start();
    websocket = attachGraphQLWebSocket({
      server: app.server,
      schema,
      orm,
      services,
      log: app.log,
      depositEvents,
      databaseUrl: services.config.DATABASE_URL,
    });
    await websocket.start();
    metrics.countWebSockets(() => websocket?.connections() ?? 0);
  });
  app.addHook('preClose', async () => {
    await websocket?.close();
  });
  app.addHook('onClose', async () => {
    await depositEvents?.stop();
  });

  return app as unknown as FastifyInstance;
}
