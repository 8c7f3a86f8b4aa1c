import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import { WithdrawalConnectionType, WithdrawalNode, WithdrawInput } from '../types/withdrawal.type';

/** Secret keys only (client secrets are refused by the guard, and again here). */
@Resolver(() => WithdrawalNode)
export class WithdrawalResolver {
  @Query(() => WithdrawalNode, {
    nullable: true,
    description: 'One withdrawal; null when unknown or not yours.',
  })
  async withdrawal(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WithdrawalNode | null> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const withdrawal = await ctx.services.withdrawals.find(ctx.em, merchantId, id);
    return withdrawal ? WithdrawalNode.from(withdrawal) : null;
  }

  @Query(() => WithdrawalConnectionType, { description: 'Your withdrawals, newest first.' })
  async withdrawals(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WithdrawalConnectionType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    const page = await ctx.services.withdrawals.listAfter(ctx.em, merchantId, cursor, limit);
    return Object.assign(new WithdrawalConnectionType(), {
      ...connectionOf(
        page.withdrawals,
        (w) => WithdrawalNode.from(w),
        (w) => encodeCursor({ createdAt: w.createdAt, id: w.id }),
        page.hasMore,
        cursor !== null,
      ),
      totalCount: page.total,
    });
  }

  @Mutation(() => WithdrawalNode, {
    description:
      'Moves the amount from usd_available to usd_pending_withdrawal at once; status PENDING.',
  })
  async withdraw(
    @Arg('input', () => WithdrawInput) input: WithdrawInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WithdrawalNode> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const withdrawal = await ctx.services.withdrawals.request(ctx.em, merchantId, {
      amount: input.amount,
      asset: input.asset,
      chain: input.chain,
      destination_address: input.destinationAddress,
    });
    return WithdrawalNode.from(withdrawal);
  }
}
