import { Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { MerchantType } from '../types/merchant.type';

@Resolver(() => MerchantType)
export class MerchantResolver {
  @Query(() => MerchantType, { description: 'The merchant the key belongs to.' })
  async merchant(@Ctx() ctx: GraphQLContext): Promise<MerchantType> {
    return MerchantType.from(await ctx.services.merchants.get(ctx.em, ctx.principal.merchantId));
  }
}
