import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import {
  CreatedOnrampType,
  CreateOnrampInput,
  OnrampConnectionType,
  OnrampNode,
} from '../types/onramp.type';

@Resolver(() => OnrampNode)
export class OnrampResolver {
  @Query(() => OnrampNode, {
    nullable: true,
    description: 'One onramp; null when unknown or not yours.',
  })
  async onramp(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<OnrampNode | null> {
    // A client secret naming another onramp is FORBIDDEN (before anything is read).
    const onramp = await ctx.services.onramps.find(ctx.em, ctx.requestContext, id);
    return onramp ? OnrampNode.from(onramp, ctx.services.clock.now()) : null;
  }

  @Query(() => OnrampConnectionType, { description: 'Your onramps, newest first.' })
  async onramps(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<OnrampConnectionType> {
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    const page = await ctx.services.onramps.listAfter(ctx.em, ctx.requestContext, cursor, limit);
    const now = ctx.services.clock.now();
    return Object.assign(new OnrampConnectionType(), {
      ...connectionOf(
        page.onramps,
        (o) => OnrampNode.from(o, now),
        (o) => encodeCursor({ createdAt: o.createdAt, id: o.id }),
        page.hasMore,
        cursor !== null,
      ),
      totalCount: page.total,
    });
  }

  @Mutation(() => CreatedOnrampType)
  async createOnramp(
    @Arg('input', () => CreateOnrampInput) input: CreateOnrampInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedOnrampType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const created = await ctx.services.onramps.create(ctx.em, merchantId, input);
    const now = ctx.services.clock.now();
    const result = OnrampNode.fill(new CreatedOnrampType(), created.onramp, now);
    result.onramp = OnrampNode.from(created.onramp, now);
    result.clientSecret = created.clientSecret;
    return result;
  }

  @Mutation(() => OnrampNode, { description: 'PERMANENT onramps only.' })
  async deactivateOnramp(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<OnrampNode> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const onramp = await ctx.services.onramps.deactivate(ctx.em, merchantId, id);
    return OnrampNode.from(onramp, ctx.services.clock.now());
  }

  @Mutation(() => OnrampNode, {
    description:
      "Revokes the onramp's client secret: it answers 401 from now on and its websockets close (4403). Revoking again answers the onramp.",
  })
  async revokeClientSecret(
    @Arg('onrampId', () => ID) onrampId: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<OnrampNode> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const onramp = await ctx.services.onramps.revokeClientSecret(ctx.em, merchantId, onrampId);
    return OnrampNode.from(onramp, ctx.services.clock.now());
  }
}
