import { Arg, Ctx, ID, Mutation, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { DepositNode } from '../types/deposit.type';

/**
 * Returns to the payer (docs/api.md, "Returns to the payer"). `all` keys only: money leaves,
 * so no restricted scope opens it (no line in root-field-scopes.ts).
 */
@Resolver(() => DepositNode)
export class DepositReturnResolver {
  @Mutation(() => DepositNode, {
    description:
      'Sends a FLAGGED deposit back to the account that paid it (minus the return fee); answers it RETURNING.',
  })
  async returnDeposit(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DepositNode> {
    const { merchantId } = requireSecretKey(ctx.principal);
    await ctx.services.returns.returnForMerchant(ctx.em, merchantId, id);
    return DepositNode.from(await ctx.services.deposits.getView(ctx.em, ctx.requestContext, id));
  }
}
