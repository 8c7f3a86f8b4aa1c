import type { MiddlewareFn } from 'type-graphql';
import type { GraphQLContext } from './context';
import { forbidden } from '../../services/auth.service';

/**
 * Default deny for client secrets: of the root fields, only these may be reached with one,
 * and each of them checks the onramp is the secret's own. New fields are closed until listed.
 */
export const CLIENT_SECRET_FIELDS = new Set([
  'Query.onramp',
  'Query.deposit',
  'Query.deposits',
  'Subscription.depositUpdated',
]);

const ROOT_TYPES = new Set(['Query', 'Mutation', 'Subscription']);

export const clientSecretGuard: MiddlewareFn<GraphQLContext> = ({ context, info }, next) => {
  if (
    context.principal?.kind === 'client_secret' &&
    ROOT_TYPES.has(info.parentType.name) &&
    !CLIENT_SECRET_FIELDS.has(`${info.parentType.name}.${info.fieldName}`)
  ) {
    throw forbidden();
  }
  return next();
};
