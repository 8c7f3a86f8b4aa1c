import { Type } from 'typebox';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { ErrorCode } from '../../../domain/errors';

const HealthResponse = Type.Object({
  status: Type.String({ enum: ['ok', 'unavailable'] }),
  database: Type.String({ enum: ['ok', 'down'] }),
  environment: Type.String(),
  version: Type.String(),
  error: Type.Optional(Type.Object({ code: Type.String(), message: Type.String() })),
});

export const healthRoutes =
  (services: Services, version: string): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/health',
      {
        config: { public: true },
        schema: {
          summary: 'Reachability and database check',
          tags: ['health'],
          response: { 200: HealthResponse, 503: HealthResponse },
        },
      },
      async (request, reply) => {
        const report = await services.health.check(request.em);
        const body = { ...report, environment: services.config.ONRAMP_ENV, version };
        if (report.status === 'ok') return body;
        return reply.code(503).send({
          ...body,
          error: { code: ErrorCode.ServiceUnavailable, message: 'The database is unreachable' },
        });
      },
    );
  };
