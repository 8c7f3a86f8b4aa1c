import { defaultFieldResolver, type GraphQLSchema } from 'graphql';
import type { GraphQLContext } from './context';
import { forbidden } from '../../context/read-scope';

/**
 * Default deny for client secrets: of the root fields, only these may be reached with one,
 * and the read services they call hold it to its onramp (the request context's scope). New
 * fields are closed until listed.
 */
export const CLIENT_SECRET_FIELDS = new Set([
  'Query.onramp',
  'Query.deposit',
  'Query.deposits',
  'Subscription.depositUpdated',
]);

/**
 * Wraps every root field not listed above so that a client secret gets FORBIDDEN at that
 * field's path. Only root fields are wrapped: what is reachable below them was decided at the
 * root, and a global type-graphql middleware ran (a wrapper and a promise) on every field of
 * every object, nearly a third of a polled `deposit(id)`'s CPU.
 */
export function guardClientSecretRootFields(schema: GraphQLSchema): GraphQLSchema {
  for (const type of [
    schema.getQueryType(),
    schema.getMutationType(),
    schema.getSubscriptionType(),
  ]) {
    if (!type) continue;
    for (const field of Object.values(type.getFields())) {
      if (CLIENT_SECRET_FIELDS.has(`${type.name}.${field.name}`)) continue;
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args, context: GraphQLContext, info) => {
        if (context.principal?.kind === 'client_secret') throw forbidden();
        return resolve(source, args, context, info);
      };
    }
  }
  return schema;
}
