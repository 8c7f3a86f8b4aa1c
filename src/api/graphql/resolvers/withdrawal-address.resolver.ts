import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { presentWithdrawalAddress } from '../../../payouts';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import {
  AddWithdrawalAddressInput,
  MerchantSettingsNode,
  UpdateMerchantSettingsInput,
  WithdrawalAddressConnectionType,
  WithdrawalAddressNode,
} from '../types/withdrawal-address.type';
import { amountRulePatch, nameCheckPatch, payerResolutionPatch } from '../types/payment-rules.type';

/** The address book and the merchant's settings. Secret keys only. */
@Resolver(() => WithdrawalAddressNode)
export class WithdrawalAddressResolver {
  @Query(() => WithdrawalAddressConnectionType, {
    description: 'Your withdrawal address book, newest first.',
  })
  async withdrawalAddresses(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WithdrawalAddressConnectionType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    const page = await ctx.services.withdrawalAddresses.listAfter(
      ctx.em,
      merchantId,
      cursor,
      limit,
    );
    const now = ctx.services.clock.now();
    return Object.assign(new WithdrawalAddressConnectionType(), {
      ...connectionOf(
        page.entries,
        (entry) => WithdrawalAddressNode.from(presentWithdrawalAddress(entry, now)),
        (entry) => encodeCursor({ createdAt: entry.createdAt, id: entry.id }),
        page.hasMore,
        cursor !== null,
      ),
      totalCount: page.total,
    });
  }

  @Mutation(() => WithdrawalAddressNode, {
    description:
      'Adds an address, PENDING until activeAt; an address already in the book answers that entry.',
  })
  async addWithdrawalAddress(
    @Arg('input', () => AddWithdrawalAddressInput) input: AddWithdrawalAddressInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WithdrawalAddressNode> {
    const { merchantId, keyId } = requireSecretKey(ctx.principal);
    const { entry } = await ctx.services.withdrawalAddresses.add(
      ctx.em,
      { merchantId, keyId },
      input,
    );
    return WithdrawalAddressNode.from(presentWithdrawalAddress(entry, ctx.services.clock.now()));
  }

  @Mutation(() => WithdrawalAddressNode, { description: 'Removes an address at once.' })
  async removeWithdrawalAddress(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WithdrawalAddressNode> {
    const { merchantId, keyId } = requireSecretKey(ctx.principal);
    const entry = await ctx.services.withdrawalAddresses.remove(ctx.em, { merchantId, keyId }, id);
    return WithdrawalAddressNode.from(presentWithdrawalAddress(entry, ctx.services.clock.now()));
  }

  @Query(() => MerchantSettingsNode, { description: 'Your settings, as they apply.' })
  async merchantSettings(@Ctx() ctx: GraphQLContext): Promise<MerchantSettingsNode> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return MerchantSettingsNode.from(await ctx.services.merchantSettings.get(ctx.em, merchantId));
  }

  @Mutation(() => MerchantSettingsNode, {
    description: 'Changes the settings given; a change sends merchant.settings_updated.',
  })
  async updateMerchantSettings(
    @Arg('input', () => UpdateMerchantSettingsInput) input: UpdateMerchantSettingsInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<MerchantSettingsNode> {
    const { merchantId, keyId } = requireSecretKey(ctx.principal);
    return MerchantSettingsNode.from(
      await ctx.services.merchantSettings.update(
        ctx.em,
        { merchantId, keyId },
        {
          require_address_book: input.requireAddressBook ?? undefined,
          underpayment: amountRulePatch(input.underpayment),
          overpayment: amountRulePatch(input.overpayment),
          payer_name_check: nameCheckPatch(input.payerNameCheck),
          allowed_origins: input.allowedOrigins ?? undefined,
          payer_resolution: payerResolutionPatch(input.payerResolution),
        },
      ),
    );
  }
}
