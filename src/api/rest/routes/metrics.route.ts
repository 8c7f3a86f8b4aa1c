import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Registry } from 'prom-client';

/**
 * `GET /metrics`: Prometheus text without a key, served by the gateway's internal listener
 * only (never the public API port). Rendering reads memory: the database gauges are counted on
 * timers, so scrapes cost the database nothing.
 */
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
