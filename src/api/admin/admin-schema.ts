import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema } from 'type-graphql';
import { AdminResolver } from './admin.resolver';
import { SanctionsResolver } from './sanctions.resolver';
import { MerchantTermsResolver } from './merchant-terms.resolver';

/** The admin endpoint's own schema: nothing of the merchant API, nothing of this in it. */
export function buildAdminSchema(): Promise<GraphQLSchema> {
  return buildSchema({
    resolvers: [AdminResolver, SanctionsResolver, MerchantTermsResolver],
    validate: false,
  });
}
