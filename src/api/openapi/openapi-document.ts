import Fastify, { type FastifyInstance } from 'fastify';
import swagger from '@fastify/swagger';
import type { Services } from '../../container';
import { systemClock } from '../../clock';
import { restRoutes } from '../rest/routes';
import { addSharedSchemas } from '../rest/shared-schemas';
import { openApiOptions } from './openapi-options';

/**
 * What the routes read while they register (never while serving: no request reaches this
 * instance): a sandbox with bank notifications configured, so every route is documented.
 */
const REGISTRATION_ONLY = {
  config: { ONRAMP_ENV: 'sandbox', BANK_WEBHOOK_SECRET: 'document-only' },
  clock: systemClock,
} as unknown as Services;

/**
 * The OpenAPI document as the gateway generates it from its routes, without a database or a
 * listener: what `npm run openapi` writes to docs/openapi.json and the drift test compares.
 */
export async function buildOpenApiDocument(version: string): Promise<Record<string, unknown>> {
  const app = Fastify({ logger: false }) as unknown as FastifyInstance;
  addSharedSchemas(app);
  await app.register(swagger, openApiOptions(version));
  for (const routes of restRoutes(REGISTRATION_ONLY, version)) await app.register(routes);
  await app.ready();
  try {
    return app.swagger() as unknown as Record<string, unknown>;
  } finally {
    await app.close();
  }
}
