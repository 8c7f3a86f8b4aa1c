import { fastifyApolloDrainPlugin, fastifyApolloHandler } from '@as-integrations/fastify';
import type { FastifyInstance } from 'fastify';
import { environmentOf, type Services } from '../../container';
import { operatorContext } from '../../context/request-context';
import { createApollo } from '../graphql/apollo';
import type { AdminContext } from './admin-context';
import { buildAdminSchema } from './admin-schema';

export const ADMIN_GRAPHQL_PATH = '/admin/graphql';

/**
 * `POST /admin/graphql`: the operator's GraphQL endpoint, served by the internal listener
 * only (src/api/internal-server.ts), whose onRequest hook has already authenticated the
 * operator token (401 otherwise); merchant keys never get here.
 */
export async function registerAdminGraphQL(
  app: FastifyInstance,
  options: { services: Services; production: boolean },
): Promise<void> {
  const apollo = createApollo<AdminContext>(await buildAdminSchema(), {
    production: options.production,
    log: app.log,
    plugins: [fastifyApolloDrainPlugin(app)],
  });
  await apollo.start();
  const deployment = {
    environment: environmentOf(options.services.config),
    clock: options.services.clock,
  };
  app.route({
    method: 'POST',
    url: ADMIN_GRAPHQL_PATH,
    config: { operator: true },
    schema: { hide: true },
    handler: fastifyApolloHandler<AdminContext>(apollo, {
      context: async (request) => ({
        em: request.em,
        operator: request.operator!,
        // The audit log's actor: the operator token's name.
        requestContext: operatorContext(`operator:${request.operator!.name}`, deployment),
        services: options.services,
        requestId: request.id,
      }),
    }),
  });
}
