import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { Services } from '../../../container';
import { ErrorCode } from '../../../domain/errors';
import { HealthResponse, refTo } from '../schemas';
import { providersReport } from '../../probes/providers-report';

export const healthRoutes =
  (services: Services, version: string): FastifyPluginAsyncTypebox =>
  async (app) => {
    app.get(
      '/health',
      {
        config: { public: true },
        schema: {
          operationId: 'getHealth',
          summary: 'Reachability and database check (no key)',
          tags: ['health'],
          response: { 200: refTo(HealthResponse), 503: refTo(HealthResponse) },
        },
      },
      async (request, reply) => {
        const report = await services.health.check(request.em);
        const body = {
          ...report,
          environment: services.config.ONRAMP_ENV,
          version,
          providers: providersReport(services),
        };
        if (report.status === 'ok') return body;
        return reply.code(503).send({
          ...body,
          error: { code: ErrorCode.ServiceUnavailable, message: 'The database is unreachable' },
        });
      },
    );
  };
