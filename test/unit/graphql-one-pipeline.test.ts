import pino from 'pino';
import type { ApolloServerPlugin } from '@apollo/server';
import Fastify, { type FastifyBaseLogger, type FastifyInstance } from 'fastify';
import { buildSchema, type GraphQLSchema } from 'graphql';
import { createApollo } from '../../src/api/graphql/apollo';
import type { GraphQLContext } from '../../src/api/graphql/context';
import { graphqlDocumentCache } from '../../src/api/graphql/document-cache';
import { graphqlHttpHandler } from '../../src/api/graphql/http-handler';
import { buildGraphQLSchema } from '../../src/api/graphql/schema';

/**
 * One GraphQL pipeline over HTTP (issue 34): every `POST /graphql`, a cached document's
 * included, goes through the gateway's Apollo (`createApollo`, the shared document cache as
 * its document store), so every plugin sees it, a document executes once per request whatever
 * its result, and errors take their shape once, from `formatGraphQLError`. The answers asserted
 * are the bytes the removed hot path (src/api/graphql/hot-queries.ts) was held to; real fields
 * against a real database: test/e2e/graphql-repeated-queries.e2e.test.ts.
 */
const silentLog = pino({ level: 'silent' }) as unknown as FastifyBaseLogger;
const REPEAT = 12;

/** Every request a plugin saw, by hook: what a plugin would miss if a request skipped Apollo. */
function watchingPlugin() {
  const seen = { requests: 0, responses: 0, errors: 0, parsed: 0 };
  const plugin: ApolloServerPlugin = {
    requestDidStart: async () => {
      seen.requests += 1;
      return {
        parsingDidStart: async () => {
          seen.parsed += 1;
        },
        didEncounterErrors: async () => {
          seen.errors += 1;
        },
        willSendResponse: async () => {
          seen.responses += 1;
        },
      };
    },
  };
  return { seen, plugin };
}

/**
 * `POST /graphql` as the gateway serves it (`graphqlHttpHandler` on the gateway's Apollo), over
 * HTTP on a Fastify of its own; `context` stands in for the authenticated request's context.
 */
async function gatewayFor(schema: GraphQLSchema, plugin: ApolloServerPlugin) {
  const apollo = createApollo<GraphQLContext>(schema, {
    production: false,
    log: silentLog,
    documents: graphqlDocumentCache(schema, false),
    plugins: [plugin],
  });
  await apollo.start();
  let context: object = {};
  const app: FastifyInstance = Fastify();
  app.post(
    '/graphql',
    graphqlHttpHandler(apollo, async () => context as GraphQLContext),
  );
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  return {
    send: async (query: string, as: object = {}) => {
      context = as;
      const response = await fetch(`${url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return {
        status: response.status,
        contentType: response.headers.get('content-type'),
        cacheControl: response.headers.get('cache-control'),
        body: await response.text(),
      };
    },
    stop: async () => {
      await app.close();
      await apollo.stop();
    },
  };
}

describe('GraphQL over HTTP: one pipeline', () => {
  let schema: GraphQLSchema;

  beforeAll(async () => {
    schema = await buildGraphQLSchema();
  });

  it('answers a cached document through Apollo every time, each request seen by the plugins', async () => {
    const { seen, plugin } = watchingPlugin();
    const gateway = await gatewayFor(schema, plugin);
    try {
      for (let i = 0; i < REPEAT; i += 1) {
        expect(await gateway.send('query Probe { __typename }')).toEqual({
          status: 200,
          contentType: 'application/json; charset=utf-8',
          cacheControl: 'no-store',
          body: '{"data":{"__typename":"Query"}}\n',
        });
      }
      // Parsed once (the document cache), yet every request went through the plugins.
      expect(seen).toEqual({ requests: REPEAT, responses: REPEAT, errors: 0, parsed: 1 });
    } finally {
      await gateway.stop();
    }
  });

  it('shapes a refused field once, with the API code, every time', async () => {
    const { seen, plugin } = watchingPlugin();
    const gateway = await gatewayFor(schema, plugin);
    const rateReader = { principal: { kind: 'secret_key', scopes: ['rates:read'] } };
    try {
      for (let i = 0; i < REPEAT; i += 1) {
        const answer = await gateway.send('query Mine { merchant { id } }', rateReader);
        expect(answer).toEqual({
          status: 200,
          contentType: 'application/json; charset=utf-8',
          cacheControl: 'no-store',
          body:
            '{"errors":[{"message":"This API key lacks the scope balance:read",' +
            '"locations":[{"line":1,"column":14}],"path":["merchant"],' +
            '"extensions":{"code":"INSUFFICIENT_SCOPE"}}],"data":null}\n',
        });
      }
      expect(seen).toMatchObject({ requests: REPEAT, errors: REPEAT, parsed: 1 });
    } finally {
      await gateway.stop();
    }
  });

  it('executes a document once per request whatever its result, masking the unexpected', async () => {
    let runs = 0;
    const counting = buildSchema('type Query { boom: Int ok: Int }');
    counting.getQueryType()!.getFields().boom.resolve = () => {
      runs += 1;
      throw new Error('resolver failed');
    };
    const { seen, plugin } = watchingPlugin();
    const gateway = await gatewayFor(counting, plugin);
    try {
      for (let i = 1; i <= REPEAT; i += 1) {
        const answer = await gateway.send('{ boom ok }');
        expect(runs).toBe(i);
        expect(answer.status).toBe(200);
        expect(answer.body).toBe(
          '{"errors":[{"message":"An unexpected error occurred; quote the request id when contacting support","locations":[{"line":1,"column":3}],' +
            '"path":["boom"],"extensions":{"code":"INTERNAL_ERROR"}}],"data":{"boom":null,"ok":null}}\n',
        );
      }
      expect(seen).toMatchObject({ requests: REPEAT, errors: REPEAT, parsed: 1 });
    } finally {
      await gateway.stop();
    }
  });
});
