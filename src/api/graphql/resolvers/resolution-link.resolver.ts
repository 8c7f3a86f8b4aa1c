import {
  Arg,
  Ctx,
  Field,
  GraphQLISODateTime,
  ID,
  Int,
  Mutation,
  ObjectType,
  Resolver,
} from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';

@ObjectType('ResolutionLink', {
  description:
    'A signed link for the payer of a FLAGGED deposit (docs/api.md, "Payer resolution links").',
})
export class ResolutionLinkNode {
  @Field(() => String, {
    description: '{PUBLIC_URL}/pay/resolve/{signed token}: send it to the payer.',
  })
  url!: string;

  @Field(() => GraphQLISODateTime)
  expiresAt!: Date;
}

/**
 * Payer resolution links. `all` keys only, like `returnDeposit`: the payer's choice can send
 * money back, so no restricted scope opens it (no line in root-field-scopes.ts).
 */
@Resolver(() => ResolutionLinkNode)
export class ResolutionLinkResolver {
  @Mutation(() => ResolutionLinkNode, {
    description:
      "A link for the payer of a FLAGGED deposit to convert at today's rate (when allowed) or have it returned; supersedes the deposit's older links.",
  })
  async createResolutionLink(
    @Arg('depositId', () => ID) depositId: string,
    @Arg('expiresInSeconds', () => Int, {
      nullable: true,
      description: 'How long the link works: 300 to 604800 seconds (default 86400).',
    })
    expiresInSeconds: number | null | undefined,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ResolutionLinkNode> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const link = await ctx.services.resolutionLinks.create(
      ctx.em,
      merchantId,
      depositId,
      expiresInSeconds ?? undefined,
    );
    return Object.assign(new ResolutionLinkNode(), {
      url: link.url,
      expiresAt: new Date(link.expires_at),
    });
  }
}
