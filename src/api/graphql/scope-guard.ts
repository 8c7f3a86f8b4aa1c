import { defaultFieldResolver, type GraphQLField, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { fieldScopeTableProblems, NESTED_FIELD_SCOPES } from './field-scopes';
import { ROOT_FIELD_SCOPES } from './root-field-scopes';
import { assertScopes } from '../key-restrictions';
import type { ApiScope } from '../../domain/api-scopes';

export { NESTED_FIELD_SCOPES } from './field-scopes';

/**
 * Wraps every root field so that a key without one of the field's scopes
 * (`ROOT_FIELD_SCOPES`; none listed: only `all`) gets INSUFFICIENT_SCOPE at that field's path
 * while the document's other fields resolve. Subscriptions are checked when they start (their
 * `subscribe`), so the refusal is that subscription's error and the socket stays open.
 *
 * Below the root, scopes hold at every depth: each field that shows another scope's data than
 * its parent (`NESTED_FIELD_SCOPES`, complete by construction: a schema with a crossing field
 * not in the table, or an object type not classified, is refused here) is wrapped the same
 * way, so the refusal is at the nested field's path, null there, wherever the field appears
 * (aliases, fragments, HTTP (Apollo) or graphql-ws: one schema). Only those few
 * fields are wrapped: a document that selects none of them pays nothing, and one that does
 * pays a scope lookup per resolved instance (a wrapper on every field would cost every read).
 */
export function guardKeyScopes(schema: GraphQLSchema): GraphQLSchema {
  const problems = fieldScopeTableProblems(schema);
  // A renamed or new field would silently lose its guard: refuse to build the schema instead.
  if (problems.length > 0) throw new Error(`scope guard: ${problems.join('; ')}`);
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
