import type { FastifyPluginAsync } from 'fastify';
import type { Services } from '../../container';
import { livenessAnswer, readinessAnswer, type Phase } from '../../lib/readiness';
import { providersReport } from './providers-report';

/**
 * `/livez` and `/readyz` on the running gateway (outside the OpenAPI document: they are the
 * operator's, not the merchants'). The database is the one required check: the gateway keeps
 * no job store, and the providers are reported, never required (docs/decisions.md).
 */
export const probeRoutes =
  (services: Services, version: string, phase: () => Phase): FastifyPluginAsync =>
  async (app) => {
    const options = { config: { public: true }, schema: { hide: true } };
    app.get('/livez', options, async (_request, reply) => {
      const answer = livenessAnswer('gateway', phase());
      return reply.code(answer.status).send(answer.body);
    });
    app.get('/readyz', options, async (request, reply) => {
      const report = await services.health.check(request.em);
      const answer = readinessAnswer(
        'gateway',
        phase(),
        { database: report.database === 'ok' ? 'ok' : 'down' },
        { version, providers: providersReport(services) },
      );
      return reply.code(answer.status).send(answer.body);
    });
  };
