import { defaultFieldResolver, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { ROOT_FIELD_SCOPES } from './root-field-scopes';
import { assertScopes } from '../key-restrictions';
import type { ApiScope } from '../../domain/api-scopes';

/**
 * Fields below the root that need a scope of their own: what they show is worth more than the
 * root field that reaches them (a key with `balance:read` reads `merchant`, not the secret
 * that signs its webhooks).
 */
export const NESTED_FIELD_SCOPES: Readonly<Record<string, readonly ApiScope[]>> = {
  'WebhookEndpoint.secret': ['webhooks:write'],
};

/**
 * Wraps every root field so that a key without one of the field's scopes
 * (`ROOT_FIELD_SCOPES`; none listed: only `all`) gets INSUFFICIENT_SCOPE at that field's path
 * while the document's other fields resolve. Subscriptions are checked when they start (their
 * `subscribe`), so the refusal is that subscription's error and the socket stays open. As for
 * client secrets, only root fields (and the few nested ones above) are wrapped: a wrapper on
 * every field of every object would cost every read.
 */
export function guardKeyScopes(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [
    schema.getQueryType(),
    schema.getMutationType(),
    schema.getSubscriptionType(),
  ]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      const needed = ROOT_FIELD_SCOPES[`${type.name}.${field.name}`];
      if (type === schema.getSubscriptionType()) guardSubscribe(field, needed);
      else guardResolve(field, needed);
    }
  }
  for (const [path, needed] of Object.entries(NESTED_FIELD_SCOPES)) {
    const [typeName, fieldName] = path.split('.');
    const type = schema.getType(typeName);
    const field = type && 'getFields' in type ? type.getFields()[fieldName] : undefined;
    // A renamed field would silently lose its guard: refuse to build the schema instead.
    if (!field || !('resolve' in field)) throw new Error(`scope guard: no field ${path}`);
    guardResolve(field as GraphQLField<unknown, GraphQLContext>, needed);
  }
  return schema;
}

function guardResolve(
  field: GraphQLField<unknown, GraphQLContext>,
  needed: readonly ApiScope[] | undefined,
): void {
  const resolve = field.resolve ?? defaultFieldResolver;
  field.resolve = (source, args, context: GraphQLContext, info) => {
    assertScopes(context.principal, needed);
    return resolve(source, args, context, info);
  };
}

function guardSubscribe(
  field: GraphQLField<unknown, GraphQLContext>,
  needed: readonly ApiScope[] | undefined,
): void {
  const subscribe = field.subscribe;
  if (!subscribe) return;
  field.subscribe = (source, args, context: GraphQLContext, info) => {
    assertScopes(context.principal, needed);
    return subscribe(source, args, context, info);
  };
}
