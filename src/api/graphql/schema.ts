import 'reflect-metadata';
import { lexicographicSortSchema, printSchema, type GraphQLSchema } from 'graphql';
import { buildSchema, type NonEmptyArray, type PubSub } from 'type-graphql';
import { MerchantResolver } from './resolvers/merchant.resolver';
import { RateResolver } from './resolvers/rate.resolver';
import { SandboxResolver } from './resolvers/sandbox.resolver';
import { OnrampResolver } from './resolvers/onramp.resolver';
import { DepositResolver } from './resolvers/deposit.resolver';
import { DepositReturnResolver } from './resolvers/deposit-return.resolver';
import { ResolutionLinkResolver } from './resolvers/resolution-link.resolver';
import { WithdrawalResolver } from './resolvers/withdrawal.resolver';
import { DepositSubscriptionResolver } from './resolvers/deposit-subscription.resolver';
import { WebhookResolver } from './resolvers/webhook.resolver';
import { WebhookEndpointResolver } from './resolvers/webhook-endpoint.resolver';
import { WithdrawalAddressResolver } from './resolvers/withdrawal-address.resolver';
import { ApiKeyResolver } from './resolvers/api-key.resolver';
import { guardClientSecretRootFields } from './client-secret-guard';
import { guardKeyScopes } from './scope-guard';

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const resolvers: NonEmptyArray<Function> = [
  RateResolver,
  MerchantResolver,
  SandboxResolver,
  OnrampResolver,
  DepositResolver,
  DepositReturnResolver,
  ResolutionLinkResolver,
  WithdrawalResolver,
  DepositSubscriptionResolver,
  WebhookResolver,
  WebhookEndpointResolver,
  WithdrawalAddressResolver,
  ApiKeyResolver,
];

/**
 * type-graphql refuses a schema with subscriptions unless it has a PubSub. Ours take their
 * events from `subscribe` functions (the deposit event hub, through the context), never from
 * topics, so this one only satisfies the type and refuses to be used.
 */
const topicsUnused: PubSub = {
  publish: () => {
    throw new Error('Subscriptions here use subscribe functions, not PubSub topics');
  },
  subscribe: () => {
    throw new Error('Subscriptions here use subscribe functions, not PubSub topics');
  },
};

// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export async function buildGraphQLSchema(extra: Function[] = []): Promise<GraphQLSchema> {
  const schema = await buildSchema({
    resolvers: [...resolvers, ...extra] as NonEmptyArray<Function>, // eslint-disable-line @typescript-eslint/no-unsafe-function-type
    validate: false,
    pubSub: topicsUnused,
  });
  return guardKeyScopes(guardClientSecretRootFields(schema));
}

/** The SDL checked in as `schema.graphql`: sorted, so it only changes when the schema does. */
export function printSchemaFile(schema: GraphQLSchema): string {
  return `# Generated from the type-graphql schema by \`npm run schema\`. Do not edit.\n\n${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** Null when `schema.graphql` matches the schema; otherwise the first differing line. */
export function schemaFileDrift(schema: GraphQLSchema, fileText: string): string | null {
  const expected = printSchemaFile(schema).split('\n');
  const actual = fileText.split('\n');
  for (let i = 0; i < Math.max(expected.length, actual.length); i += 1) {
    if (expected[i] !== actual[i]) {
      return `schema.graphql is stale at line ${i + 1}: expected ${JSON.stringify(expected[i] ?? '<end>')}, found ${JSON.stringify(actual[i] ?? '<end>')}; run \`npm run schema\``;
    }
  }
  return null;
}
