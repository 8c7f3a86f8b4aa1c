import { Ctx, FieldResolver, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { BalanceType, MerchantType } from '../types/merchant.type';
import { WebhookEndpointType } from '../types/webhook.type';

@Resolver(() => MerchantType)
export class MerchantResolver {
  @Query(() => MerchantType, { description: 'The merchant the key belongs to.' })
  async merchant(@Ctx() ctx: GraphQLContext): Promise<MerchantType> {
    return MerchantType.from(await ctx.services.merchants.get(ctx.em, ctx.principal.merchantId));
  }

  @FieldResolver(() => BalanceType, { description: 'Read from the double-entry ledger.' })
  async balance(@Root() merchant: MerchantType, @Ctx() ctx: GraphQLContext): Promise<BalanceType> {
    return BalanceType.from(
      await ctx.services.ledger.balance(ctx.em, merchant.id, merchant.createdAt),
    );
  }

  @FieldResolver(() => WebhookEndpointType, {
    nullable: true,
    description: 'Null until setWebhookEndpoint is called.',
  })
  async webhookEndpoint(
    @Root() merchant: MerchantType,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookEndpointType | null> {
    const endpoint = await ctx.services.webhookEndpoints.get(ctx.em, merchant.id);
    return endpoint ? WebhookEndpointType.from(endpoint) : null;
  }
}
