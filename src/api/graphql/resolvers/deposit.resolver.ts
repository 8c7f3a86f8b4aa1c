import { Arg, Ctx, ID, Int, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { assertCanReadOnramp, depositListScope } from '../../../services/auth.service';
import { parseDepositFilter } from '../../../domain/deposit-filter';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
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
    const deposit = await ctx.services.deposits.find(ctx.em, ctx.principal.merchantId, id);
    if (!deposit) return null;
    assertCanReadOnramp(ctx.principal, deposit.onrampId);
    return DepositNode.from(deposit);
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
    const principal = ctx.principal;
    const parsed = parseDepositFilter({
      ...filter,
      onrampId: depositListScope(principal, filter?.onrampId),
    });
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    const page = await ctx.services.deposits.listAfter(
      ctx.em,
      principal.merchantId,
      parsed,
      cursor,
      limit,
    );
    return Object.assign(new DepositConnectionType(), {
      ...connectionOf(
        page.deposits,
        (d) => DepositNode.from(d),
        (d) => encodeCursor({ createdAt: d.createdAt, id: d.id }),
        page.hasMore,
        cursor !== null,
      ),
      totalCount: page.total,
    });
  }
}
