import Fastify, { type FastifyInstance, type FastifyRequest } from 'fastify';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Logger } from 'pino';
import type { Services } from '../container';
import type { GatewayMetrics } from '../metrics/gateway-metrics';
import './principal';
import type { AddressLimiter } from './address-limit';
import { ADMIN_GRAPHQL_PATH, registerAdminGraphQL } from './admin/admin.route';
import { edgeServerOptions, installErrorPath } from './http-edge';
import { metricsRoute } from './rest/routes/metrics.route';
import { validatorCompiler } from './validation';

const isAdminGraphQL = (request: FastifyRequest): boolean =>
  request.url.split('?')[0] === ADMIN_GRAPHQL_PATH;

/**
 * The gateway's internal listener (INTERNAL_HOST:INTERNAL_PORT, loopback by default): the
 * gateway's `/metrics` and the operator's `/admin/graphql`, which never share the public API
 * port. Same error shape, request ids and per-address limit on failed operator tokens as the
 * public listener: loopback is not a promise that only the operator reaches it.
 */
export async function buildInternalServer(options: {
  orm: MikroORM;
  services: Services;
  logger: Logger;
  metrics: GatewayMetrics;
  limiter: AddressLimiter;
}): Promise<FastifyInstance> {
  const { orm, services, limiter } = options;
  const app = Fastify(edgeServerOptions(options.logger, services.config.TRUST_PROXY));
  app.setValidatorCompiler(validatorCompiler);
  installErrorPath(app, { limiter, isGraphQL: isAdminGraphQL });
  app.addHook('onResponse', async (request, reply) => {
    options.metrics.observeRequest(
      request.method,
      request.routeOptions.url,
      reply.statusCode,
      reply.elapsedTime / 1000,
    );
  });

  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.config?.operator) return;
    const token = request.headers.authorization;
    const presented = token ? { place: 'operator_token' as const, credential: token } : undefined;
    limiter.assertNotRefused(request.ip, presented);
    request.em = orm.em.fork();
    request.operator = await services.operatorTokens.authenticate(request.em, token);
    limiter.remember(request.ip, presented!);
  });

  await app.register(metricsRoute(options.metrics.registry));
  await registerAdminGraphQL(app, {
    services,
    production: services.config.ONRAMP_ENV === 'production',
  });
  return app;
}
