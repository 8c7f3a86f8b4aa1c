import { Arg, Ctx, ID, Int, Mutation, Query, Resolver } from 'type-graphql';
import type { GraphQLContext } from '../context';
import { requireSecretKey } from '../../../merchants';
import { decodeCursor, encodeCursor, parseFirst } from '../../../domain/pagination';
import { connectionOf } from '../types/connection';
import { graphqlWebhookSend } from '../../webhook-sends-limited';
import {
  WebhookDeliveryConnectionType,
  WebhookDeliveryType,
  WebhookEndpointType,
} from '../types/webhook.type';

/** Webhook configuration and the delivery log: secret keys only. */
@Resolver(() => WebhookEndpointType)
export class WebhookResolver {
  @Mutation(() => WebhookEndpointType, {
    description:
      'Sets the URL of your first endpoint (creating it, for every event, with its secret when you have none; enabling it again after a 410).',
  })
  async setWebhookEndpoint(
    @Arg('url', () => String) url: string,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookEndpointType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return WebhookEndpointType.from(
      await ctx.services.webhookEndpoints.set(ctx.em, merchantId, url),
    );
  }

  @Mutation(() => WebhookEndpointType, {
    description:
      'A new signing secret for your first endpoint; the previous one keeps signing (too) for 24 h.',
  })
  async rotateWebhookSecret(@Ctx() ctx: GraphQLContext): Promise<WebhookEndpointType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return WebhookEndpointType.from(await ctx.services.webhookEndpoints.rotate(ctx.em, merchantId));
  }

  @Mutation(() => WebhookDeliveryType, {
    description:
      'Sends one of your events again, as a new delivery attempted at once (to your first endpoint unless endpointId names another). Tests and replays share a per-merchant hourly budget (RATE_LIMITED, HTTP 429, past it).',
  })
  async replayWebhookEvent(
    @Arg('eventId', () => ID) eventId: string,
    @Arg('endpointId', () => ID, {
      nullable: true,
      description: 'The endpoint to send it to; your first endpoint when absent.',
    })
    endpointId: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookDeliveryType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    return WebhookDeliveryType.from(
      await graphqlWebhookSend(
        ctx.services.webhookLog.replay(ctx.em, merchantId, eventId, endpointId ?? null),
      ),
    );
  }

  @Query(() => WebhookDeliveryConnectionType, {
    description: 'Your webhook deliveries with every attempt, newest first.',
  })
  async webhookDeliveries(
    @Arg('first', () => Int, { nullable: true }) first: number | null,
    @Arg('after', () => String, { nullable: true }) after: string | null,
    @Arg('eventId', () => ID, { nullable: true }) eventId: string | null,
    @Arg('endpointId', () => ID, { nullable: true, description: "Only this endpoint's." })
    endpointId: string | null,
    @Ctx() ctx: GraphQLContext,
  ): Promise<WebhookDeliveryConnectionType> {
    const { merchantId } = requireSecretKey(ctx.principal);
    const limit = parseFirst(first);
    const cursor = after ? decodeCursor(after) : null;
    const page = await ctx.services.webhookLog.listAfter(
      ctx.em,
      merchantId,
      eventId,
      cursor,
      limit,
      endpointId ?? null,
    );
    return Object.assign(new WebhookDeliveryConnectionType(), {
      ...connectionOf(
        page.deliveries,
        (d) => WebhookDeliveryType.from(d),
        (d) => encodeCursor({ createdAt: d.createdAt, id: d.id }),
        page.hasMore,
        cursor !== null,
      ),
      totalCount: page.total,
    });
  }
}
