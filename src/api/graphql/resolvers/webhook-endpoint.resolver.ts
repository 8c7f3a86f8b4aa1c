import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import { graphqlWebhookSend } from '../../webhook-sends-limited';
import { WebhookDeliveryType, WebhookEndpointType } from '../types/webhook.type';
import {
  CreateWebhookEndpointInput,
  DeletedWebhookEndpointType,
  UpdateWebhookEndpointInput,
  WebhookEndpointConnectionType,
} from '../types/webhook-endpoint.type';

/** A merchant's several webhook endpoints (up to 10), as REST's /v1/webhook_endpoints. */
@Resolver(() => WebhookEndpointType)
export class WebhookEndpointResolver {
  @Query(() => WebhookEndpointConnectionType, {
    description: 'Your webhook endpoints, oldest first (the first is `merchant.webhookEndpoint`).',
  })
  async webhookEndpoints(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookEndpointConnectionType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    // At most 10 endpoints: read them all, page in memory (oldest first, by created_at then id).
    const all = await ctx.services.webhookEndpoints.list(ctx.em, merchantId);
    const rest = cursor
      ? all.filter(
          (e) =>
            e.createdAt.getTime() > cursor.createdAt.getTime() ||
            (e.createdAt.getTime() === cursor.createdAt.getTime() && e.id > cursor.id),
        )
      : all;
    return Object.assign(new WebhookEndpointConnectionType(), {
      ...connectionOf(
        rest.slice(0, limit),
        (e) => WebhookEndpointType.from(e),
        (e) => encodeCursor({ createdAt: e.createdAt, id: e.id }),
        rest.length > limit,
        cursor !== null,
      ),
      totalCount: all.length,
    });
  }

  @Mutation(() => WebhookEndpointType, {
    description: 'A new endpoint with its own secret (at most 10: LIMIT_EXCEEDED).',
  })
  async createWebhookEndpoint(
    @Arg('input', () => CreateWebhookEndpointInput) input: CreateWebhookEndpointInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookEndpointType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return WebhookEndpointType.from(
      await ctx.services.webhookEndpoints.create(ctx.em, merchantId, {
        url: input.url,
        enabledEvents: input.enabledEvents,
        description: input.description,
      }),
    );
  }

  @Mutation(() => WebhookEndpointType, { description: 'Changes only the fields given.' })
  async updateWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => UpdateWebhookEndpointInput) input: UpdateWebhookEndpointInput,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookEndpointType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    // GraphQL null means "not given" here, except description (null clears it).
    return WebhookEndpointType.from(
      await ctx.services.webhookEndpoints.update(ctx.em, merchantId, id, {
        url: input.url ?? undefined,
        enabledEvents: input.enabledEvents ?? undefined,
        description: input.description,
        status: input.status ?? undefined,
      }),
    );
  }

  @Mutation(() => DeletedWebhookEndpointType, {
    description: 'Deletes the endpoint; its pending deliveries stop.',
  })
  async deleteWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<DeletedWebhookEndpointType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    await ctx.services.webhookEndpoints.remove(ctx.em, merchantId, id);
    return Object.assign(new DeletedWebhookEndpointType(), { id, deleted: true });
  }

  @Mutation(() => WebhookEndpointType, {
    description: 'A new secret for this endpoint; the previous one keeps signing too for 24 h.',
  })
  async rotateWebhookEndpointSecret(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookEndpointType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return WebhookEndpointType.from(
      await ctx.services.webhookEndpoints.rotateById(ctx.em, merchantId, id),
    );
  }

  @Mutation(() => WebhookDeliveryType, {
    description:
      'Sends a signed test.ping event to this endpoint only; answers its delivery. Tests and replays share a per-merchant hourly budget (RATE_LIMITED, HTTP 429, past it).',
  })
  async testWebhookEndpoint(
    @Arg('id', () => ID) id: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookDeliveryType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return WebhookDeliveryType.from(
      await graphqlWebhookSend(ctx.services.webhookLog.sendTest(ctx.em, merchantId, id)),
    );
  }
}
