import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import {
  ApiKeyConnectionType,
  ApiKeyType,
  CreateApiKeyInput,
  CreatedApiKeyType,
} from '../types/api-key.type';

/**
 * The merchant's own keys. None of these root fields is in ROOT_FIELD_SCOPES: only a key
 * with `all` reaches them (the scope guard refuses the others INSUFFICIENT_SCOPE).
 */
@Resolver(() => ApiKeyType)
export class ApiKeyResolver {
  @Query(() => ApiKeyConnectionType, {
    description: 'Your API keys, newest first, revoked ones included (never their secrets).',
  })
  async apiKeys(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ApiKeyConnectionType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    const page = await ctx.services.apiKeys.listAfter(ctx.em, merchantId, cursor, limit);
    return Object.assign(new ApiKeyConnectionType(), {
      ...connectionOf(
        page.keys,
        (k) => ApiKeyType.from(k),
        (k) => encodeCursor({ createdAt: k.createdAt, id: k.id }),
        page.hasMore,
        cursor !== null,
      ),
      totalCount: page.total,
    });
  }

  @Mutation(() => CreatedApiKeyType, {
    description: 'A new key: a restricted rk_ key unless scopes is ["all"]. At most 100 live keys.',
  })
  async createApiKey(
    @Arg('input', () => CreateApiKeyInput) input: CreateApiKeyInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<CreatedApiKeyType> {
    const { merchantId, keyId } = requireSecretKey(ctx.principal);
    const { key, secret } = await ctx.services.apiKeys.create(ctx.em, merchantId, keyId, {
      name: input.name,
      scopes: input.scopes,
      allowedIps: input.allowedIps,
    });
    const created = ApiKeyType.fill(new CreatedApiKeyType(), key);
    created.secret = secret;
    return created;
  }

  @Mutation(() => ApiKeyType, {
    description: 'Revokes at once (its websockets close); revoking again answers the key.',
  })
  async revokeApiKey(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<ApiKeyType> {
    const { merchantId, keyId } = requireSecretKey(ctx.principal);
    return ApiKeyType.from(await ctx.services.apiKeys.revoke(ctx.em, merchantId, keyId, id));
  }
}
