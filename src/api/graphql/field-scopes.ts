import {
  getNamedType,
  isObjectType,
  type GraphQLField,
  type GraphQLObjectType,
  type GraphQLSchema,
} from 'graphql';
import type { ApiScope } from '../../domain/api-scopes';

/** A type that carries no scope's data (pagination bookkeeping): anyone who reaches it reads it. */
export const NO_SCOPE_DATA = 'no scope data';

/**
 * Whose data each object type of the schema is: the scopes that let a restricted key read it
 * through REST (any one of them; `[]`: only `all`). Every object type must be here (the schema
 * is refused otherwise), so a new type is classified before it is served. Connections and
 * edges are their nodes' data.
 */
export const TYPE_SCOPES: Readonly<Record<string, readonly ApiScope[] | typeof NO_SCOPE_DATA>> = {
  PageInfo: NO_SCOPE_DATA,
  Rate: ['rates:read'],
  Onramp: ['onramps:read', 'onramps:write'],
  OnrampConnection: ['onramps:read'],
  OnrampEdge: ['onramps:read'],
  CreatedOnramp: ['onramps:write'],
  VirtualAccount: ['onramps:read', 'onramps:write'],
  Settlement: ['onramps:read', 'onramps:write'],
  OnrampCustomer: ['onramps:read', 'onramps:write'],
  Deposit: ['deposits:read'],
  DepositConnection: ['deposits:read'],
  DepositEdge: ['deposits:read'],
  DepositPayer: ['deposits:read'],
  DepositStatusChange: ['deposits:read'],
  SettledVolumeDay: ['deposits:read'],
  Merchant: ['balance:read'],
  Balance: ['balance:read'],
  Withdrawal: ['balance:read', 'withdrawals:write'],
  WithdrawalConnection: ['balance:read', 'withdrawals:write'],
  WithdrawalEdge: ['balance:read', 'withdrawals:write'],
  WithdrawalAddress: ['withdrawals:write', 'balance:read'],
  WithdrawalAddressConnection: ['withdrawals:write', 'balance:read'],
  WithdrawalAddressEdge: ['withdrawals:write', 'balance:read'],
  WebhookEndpoint: ['webhooks:write'],
  WebhookEndpointConnection: ['webhooks:write'],
  WebhookEndpointEdge: ['webhooks:write'],
  DeletedWebhookEndpoint: ['webhooks:write'],
  WebhookDelivery: ['webhooks:write'],
  WebhookDeliveryConnection: ['webhooks:write'],
  WebhookDeliveryEdge: ['webhooks:write'],
  WebhookAttempt: ['webhooks:write'],
  SandboxScenario: ['sandbox:write'],
  ApiKey: [],
  ApiKeyConnection: [],
  ApiKeyEdge: [],
  CreatedApiKey: [],
  MerchantSettings: [],
  AmountRule: [],
  PayerNameCheck: [],
  PayerResolution: [],
  PendingSettingChange: [],
  ResolutionLink: [],
};

/**
 * Fields below the root that need a scope of their own, enforced wherever they appear in a
 * document (API.md: scopes hold at every depth). Every field whose type is another scope's
 * data than its parent's must be here with that type's scopes (`crossingFields`; the schema is
 * refused otherwise); leaf fields worth more than their object may be added too.
 */
export const NESTED_FIELD_SCOPES: Readonly<Record<string, readonly ApiScope[]>> = {
  // A balance:read key reads the merchant, not where its events go.
  'Merchant.webhookEndpoint': ['webhooks:write'],
  // The secret that signs the merchant's webhooks (only reached through the field above or
  // through webhooks:write roots: kept as a second lock).
  'WebhookEndpoint.secret': ['webhooks:write'],
};

export interface CrossingField {
  /** `Type.field`. */
  path: string;
  field: GraphQLField<unknown, unknown>;
  /** The scopes of the data it shows (its type's). */
  needs: readonly ApiScope[];
}

/** Every object type of the schema but the root types. */
function dataTypes(schema: GraphQLSchema): GraphQLObjectType[] {
  const roots = new Set([
    schema.getQueryType(),
    schema.getMutationType(),
    schema.getSubscriptionType(),
  ]);
  return Object.values(schema.getTypeMap()).filter(
    (type): type is GraphQLObjectType =>
      isObjectType(type) && !type.name.startsWith('__') && !roots.has(type),
  );
}

/**
 * Object types below the root that the table does not classify: a nested field's type must be,
 * or `crossingFields` could not tell whether reaching it crosses into another scope's data. (A
 * type only root fields answer may go unclassified: its own object fields then all count as
 * crossings, and the test holds the served schema to a full classification anyway.)
 */
export function unclassifiedTypes(schema: GraphQLSchema): string[] {
  const nested = new Set<string>();
  for (const parent of dataTypes(schema)) {
    for (const field of Object.values(parent.getFields())) {
      const child = getNamedType(field.type);
      if (isObjectType(child) && !(child.name in TYPE_SCOPES)) nested.add(child.name);
    }
  }
  return [...nested];
}

/**
 * A key that may read `parent` may not necessarily read `child` unless every scope that opens
 * the parent also opens the child (a parent only `all` reads opens everything below it).
 */
function opens(parent: readonly ApiScope[] | typeof NO_SCOPE_DATA, child: readonly ApiScope[]) {
  if (parent === NO_SCOPE_DATA) return false;
  return parent.every((scope) => child.includes(scope));
}

/**
 * The fields below the root whose type is data that their parent's scopes do not open. Root
 * fields are not here: each is checked by `ROOT_FIELD_SCOPES`, and its answer is what its REST
 * twin answers to the same scope (`simulateDeposit` answers the deposit to `sandbox:write`).
 */
export function crossingFields(schema: GraphQLSchema): CrossingField[] {
  const crossing: CrossingField[] = [];
  for (const parent of dataTypes(schema)) {
    const parentScopes = TYPE_SCOPES[parent.name];
    for (const field of Object.values(parent.getFields())) {
      const child = getNamedType(field.type);
      const childScopes = TYPE_SCOPES[child.name];
      if (!isObjectType(child) || childScopes === undefined || childScopes === NO_SCOPE_DATA)
        continue;
      if (parentScopes !== undefined && opens(parentScopes, childScopes)) continue;
      crossing.push({ path: `${parent.name}.${field.name}`, field, needs: childScopes });
    }
  }
  return crossing;
}

/**
 * What is wrong with the table for this schema: unclassified types, crossing fields missing
 * or with other scopes, entries naming no field. Empty when complete.
 */
export function fieldScopeTableProblems(schema: GraphQLSchema): string[] {
  const problems = unclassifiedTypes(schema).map((name) => `type ${name} has no TYPE_SCOPES entry`);
  for (const { path, needs } of crossingFields(schema)) {
    const listed = NESTED_FIELD_SCOPES[path];
    if (!listed)
      problems.push(`${path} shows ${needs.join('/') || 'all'} data: not in NESTED_FIELD_SCOPES`);
    else if ([...listed].sort().join() !== [...needs].sort().join()) {
      problems.push(`${path} needs ${needs.join(' or ')}, the table says ${listed.join(' or ')}`);
    }
  }
  for (const path of Object.keys(NESTED_FIELD_SCOPES)) {
    const [typeName, fieldName] = path.split('.');
    const type = schema.getType(typeName);
    if (!isObjectType(type) || !type.getFields()[fieldName]) problems.push(`no field ${path}`);
  }
  return problems;
}
