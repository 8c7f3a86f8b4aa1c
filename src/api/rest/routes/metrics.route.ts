import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';

/** `GET /metrics`: Prometheus text, without a key like `/health` (keep it off the internet). */
export const metricsRoute =
  (registry: Registry): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/metrics',
      { config: { public: true }, schema: { hide: true } },
      async (_request, reply) => {
        const text = await registry.metrics();
        return reply.type(registry.contentType).send(text);
      },
    );
  };
