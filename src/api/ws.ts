import type { Server } from 'node:http';
import { WebSocketServer } from 'ws';
import { useServer } from 'graphql-ws/use/ws';
import { GraphQLError, parse, validate, specifiedRules, type GraphQLSchema } from 'graphql';
import type { MikroORM } from '@mikro-orm/postgresql';
import type { FastifyBaseLogger } from 'fastify';
import type { Services } from '../services';
import type { Principal } from '../services/auth.service';
import { DomainError, ErrorCode } from '../domain/errors';
import { formatGraphQLError } from './graphql/errors';
import { queryLimitsRule } from './graphql/limits';
import { ulid } from 'ulid';

type ConnectionExtra = Record<PropertyKey, unknown> & { principal?: Principal };

/**
 * graphql-ws on the gateway's HTTP server at `/graphql`. The client authenticates in
 * `connectionParams.authorization` ("Bearer ..."); a bad key closes the socket with 4401.
 */
export function attachGraphQLWebSocket(options: {
  server: Server;
  schema: GraphQLSchema;
  orm: MikroORM;
  services: Services;
  log: FastifyBaseLogger;
}): { close(): Promise<void> } {
  const wss = new WebSocketServer({
    server: options.server,
    path: '/graphql',
    maxPayload: 64 * 1024,
  });
  const format = formatGraphQLError(options.log);
  const rules = [...specifiedRules, queryLimitsRule()];

  const disposable = useServer<Record<string, unknown>, ConnectionExtra>(
    {
      schema: options.schema,
      onConnect: async (ctx) => {
        const header = ctx.connectionParams?.authorization ?? ctx.connectionParams?.Authorization;
        try {
          ctx.extra.principal = await options.services.auth.authenticate(
            options.orm.em.fork(),
            typeof header === 'string' ? header : undefined,
          );
          return true;
        } catch (error) {
          if (error instanceof DomainError && error.code === ErrorCode.Unauthorized) {
            ctx.extra.socket.close(4401, `Unauthorized: ${error.message}`.slice(0, 120));
            return false;
          }
          options.log.error({ err: error }, 'websocket authentication failed unexpectedly');
          ctx.extra.socket.close(1011, 'Service unavailable');
          return false;
        }
      },
      onSubscribe: (_ctx, _id, payload) => {
        let document;
        try {
          document = parse(payload.query);
        } catch (error) {
          return [error as GraphQLError];
        }
        const errors = validate(options.schema, document, rules);
        if (errors.length > 0) return errors;
        return {
          schema: options.schema,
          document,
          operationName: payload.operationName,
          variableValues: payload.variables,
        };
      },
      context: (ctx) => ({
        em: options.orm.em.fork(),
        principal: ctx.extra.principal,
        services: options.services,
        requestId: `ws_${ulid()}`,
      }),
      onNext: (_ctx, _id, _payload, _args, result) =>
        'errors' in result && result.errors
          ? { ...result, errors: result.errors.map((e) => format(e.toJSON(), e) as GraphQLError) }
          : result,
      onError: (_ctx, _id, _payload, errors) =>
        errors.map(
          (e) =>
            new GraphQLError(format(e.toJSON(), e).message, {
              extensions: format(e.toJSON(), e).extensions,
            }),
        ),
    },
    wss,
  );

  return {
    close: async () => {
      await disposable.dispose();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
