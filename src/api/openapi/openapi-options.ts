import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';
import { completeOperation, type Operation } from './complete-operations';
import { HEADER_COMPONENTS, IDEMPOTENCY_KEY_PARAMETER, REQUEST_ID_PARAMETER } from './headers';
import { WEBHOOK_PARAMETERS, WEBHOOK_SCHEMAS, webhooksSection } from './webhooks';

const DESCRIPTION = [
  'REST `/v1` of the self-hosted NGN-to-stablecoin onramp service: quote a rate, create an',
  'onramp (a virtual NGN bank account), receive deposits, settle them on-chain or to your USD',
  'balance, withdraw. Errors are `{"error": {"code", "message", "details"?}}` with `code` from a',
  'fixed list. The contract in words: docs/api.md. GraphQL (`/graphql`, graphql-ws) serves the',
  'same operations; its schema is schema.graphql.',
].join(' ');

const TAGS = [
  { name: 'health', description: 'Reachability, without a key' },
  { name: 'rates', description: 'Firm NGN quotes' },
  { name: 'onramps', description: 'Virtual accounts bound to a rate and a settlement' },
  { name: 'deposits', description: 'NGN transfers received and their settlement' },
  { name: 'merchant', description: 'Balance and withdrawals' },
  { name: 'sandbox', description: 'Simulated bank transfers (sandbox deployments only)' },
  { name: 'bank', description: "The bank provider's notifications (not for merchants)" },
  { name: 'webhook endpoints', description: 'Where your webhooks go (up to 10 endpoints)' },
  { name: 'webhooks', description: 'Events the service POSTs to your endpoint' },
];

/** Route `config` flags the gateway's authentication reads (server.ts, onRequest). */
interface AuthConfig {
  public?: boolean;
  clientSecret?: boolean;
}

/** Security per route, from the same flags the gateway enforces. */
function securityOf(config: AuthConfig | undefined): Array<Record<string, string[]>> {
  if (config?.public) return [];
  if (config?.clientSecret) return [{ secretKey: [] }, { clientSecret: [] }];
  return [{ secretKey: [] }];
}

const byName = <T>(record: Record<string, T>): Record<string, T> =>
  Object.fromEntries(Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

type Document = Record<string, unknown> & {
  paths?: Record<string, Record<string, Operation>>;
  components?: Record<string, Record<string, unknown>>;
};

/** The finished document: operations completed, webhooks added, named maps in name order. */
export function completeDocument(document: Document): Document {
  const paths = byName(document.paths ?? {});
  for (const item of Object.values(paths)) {
    for (const [method, operation] of Object.entries(item)) completeOperation(method, operation);
  }
  const components = document.components ?? {};
  // The conventional order of a document's sections, whatever order the generator used.
  const { openapi, info, servers, tags, security } = document;
  return {
    openapi,
    info,
    servers,
    tags,
    security,
    paths,
    webhooks: webhooksSection(),
    components: {
      ...components,
      schemas: byName({ ...components.schemas, ...WEBHOOK_SCHEMAS }),
      parameters: byName({
        IdempotencyKey: IDEMPOTENCY_KEY_PARAMETER,
        XRequestId: REQUEST_ID_PARAMETER,
        ...WEBHOOK_PARAMETERS,
      }),
      headers: HEADER_COMPONENTS,
    },
  };
}

/** The @fastify/swagger options of the gateway and of `npm run openapi`. */
export function openApiOptions(version: string): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'NGN onramp API',
        version,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: 'http://localhost:4000', description: 'A local gateway (PORT=4000)' }],
      tags: TAGS,
      components: {
        securitySchemes: {
          secretKey: {
            type: 'http',
            scheme: 'bearer',
            description: 'A secret API key: `sk_test_...` (sandbox) or `sk_live_...` (production)',
          },
          clientSecret: {
            type: 'http',
            scheme: 'bearer',
            description:
              "An onramp's client secret (`oc_...`): reads that onramp and its deposits only",
          },
        },
      },
      security: [{ secretKey: [] }],
    },
    // Shared schemas are named by their $id (`Error`, `Deposit`...), not `def-0`.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) =>
        typeof json.$id === 'string' ? json.$id : `def-${i}`,
    },
    transform: ({ schema, url, route }) => ({
      schema: { ...schema, security: securityOf(route.config as AuthConfig | undefined) },
      url,
    }),
    transformObject: (documentObject) =>
      completeDocument(
        ('openapiObject' in documentObject ? documentObject.openapiObject : {}) as Document,
      ),
  };
}
