import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { RateType } from '../types/rate.type';

@Resolver(() => RateType)
export class RateResolver {
  @Query(() => RateType, { description: 'The newest valid quote for NGN to `to` (default USDC).' })
  async rate(
    @Arg('from', () => String) from: string,
    @Arg('to', () => String, { nullable: true }) to: string | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<RateType> {
    return RateType.from(
      await ctx.services.rates.current(
        ctx.em,
        { from, to: to ?? undefined },
        ctx.principal?.merchantId,
      ),
    );
  }
}
