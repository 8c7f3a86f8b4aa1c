import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import { actorOf, type AdminContext } from './admin-context';
import { MerchantTermsType, ReversalLiabilityEnum } from './merchant-terms.types';

/**
 * The operator's reversal liability and reserve of a merchant (as `onramp merchants liability`
 * and `onramp merchants reserve`), each change audited with the token's name.
 */
@Resolver()
export class MerchantTermsResolver {
  @Query(() => MerchantTermsType, { description: "A merchant's reversal liability and reserve." })
  async merchantLedgerTerms(
    @Arg('merchantId', () => ID) merchantId: string,
    @Ctx() ctx: AdminContext,
  ): Promise<MerchantTermsType> {
    return MerchantTermsType.from(await ctx.services.merchantTerms.read(ctx.em, merchantId));
  }

  @Mutation(() => MerchantTermsType, {
    description: "Who bears this merchant's reversals of SETTLED deposits from now on.",
  })
  async setReversalLiability(
    @Arg('merchantId', () => ID) merchantId: string,
    @Arg('liability', () => ReversalLiabilityEnum) liability: ReversalLiabilityEnum,
    @Ctx() ctx: AdminContext,
  ): Promise<MerchantTermsType> {
    return MerchantTermsType.from(
      await ctx.services.merchantTerms.setLiability(ctx.em, actorOf(ctx), merchantId, liability),
    );
  }

  @Mutation(() => MerchantTermsType, {
    description:
      'Holds percentBps (0-10,000) of each later balance settlement for holdDays (0-365); out of range: INVALID_PARAMETER and nothing changes.',
  })
  async setMerchantReserve(
    @Arg('merchantId', () => ID) merchantId: string,
    @Arg('percentBps', () => Int) percentBps: number,
    @Arg('holdDays', () => Int) holdDays: number,
    @Ctx() ctx: AdminContext,
  ): Promise<MerchantTermsType> {
    return MerchantTermsType.from(
      await ctx.services.merchantTerms.setReserve(ctx.em, actorOf(ctx), merchantId, {
        percentBps,
        holdDays,
      }),
    );
  }

  @Mutation(() => MerchantTermsType, {
    description: 'No reserve on later settlements; holds already made are released when due.',
  })
  async clearMerchantReserve(
    @Arg('merchantId', () => ID) merchantId: string,
    @Ctx() ctx: AdminContext,
  ): Promise<MerchantTermsType> {
    return MerchantTermsType.from(
      await ctx.services.merchantTerms.setReserve(ctx.em, actorOf(ctx), merchantId, null),
    );
  }
}
