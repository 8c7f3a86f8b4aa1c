import { Arg, Ctx, FieldResolver, ID, Int, Query, Resolver, Root } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { statusHistoryLoader } from '../loaders';
import { DepositStatusChangeType, SettledVolumeDayType } from '../types/dashboard.type';
import { DepositStatusEnum } from '../types/deposit.type';
import { encodeCursor } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import { DepositConnectionType, DepositFilterInput, DepositNode } from '../types/deposit.type';

@Resolver(() => DepositNode)
export class DepositResolver {
  @Query(() => DepositNode, {
    nullable: true,
    description:
      'One deposit; null when unknown or not yours. A client secret: FORBIDDEN for another onramp.',
  })
  async deposit(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DepositNode | null> {
    const deposit = await ctx.services.deposits.findView(ctx.em, ctx.requestContext, id);
    return deposit ? DepositNode.from(deposit) : null;
  }

  @Query(() => DepositConnectionType, {
    description: 'Your deposits, newest first. A client secret sees its onramp only.',
  })
  async deposits(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('filter', () => DepositFilterInput, { nullable: true }) filter: DepositFilterInput | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DepositConnectionType> {
    const page = await ctx.services.deposits.listAfter(ctx.em, ctx.requestContext, filter ?? {}, {
      first,
      after,
    });
    return Object.assign(new DepositConnectionType(), {
      ...connectionOf(
        page.deposits,
        (d) => DepositNode.from(d),
        (d) => encodeCursor({ createdAt: d.createdAt, id: d.id }),
        page.hasMore,
        page.after !== null,
      ),
      totalCount: page.total,
    });
  }

  @FieldResolver(() => [DepositStatusChangeType], {
    description: 'Every status the deposit entered, oldest first.',
  })
  async statusHistory(
    @Root() deposit: DepositNode,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DepositStatusChangeType[]> {
    // One query for all the deposits of the answer, not one per deposit.
    const history = await statusHistoryLoader(ctx).load(deposit.id);
    return history.map((h) =>
      Object.assign(new DepositStatusChangeType(), {
        status: h.status as DepositStatusEnum,
        event: h.event,
        at: h.at,
      }),
    );
  }

  @Query(() => [SettledVolumeDayType], {
    description:
      'USD of your SETTLED deposits per Africa/Lagos day, the last `days` days (default 14), oldest first.',
  })
  async settledVolume(
    @Arg('days', () => Int, { nullable: true }) days: number | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<SettledVolumeDayType[]> {
    const rows = await ctx.services.deposits.settledVolume(ctx.em, ctx.requestContext, days ?? 14);
    return rows.map((r) => Object.assign(new SettledVolumeDayType(), r));
  }
}
