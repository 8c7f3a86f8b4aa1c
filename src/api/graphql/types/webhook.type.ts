import { Field, GraphQLISODateTime, ID, Int, ObjectType, registerEnumType } from 'type-graphql';
import {
  type WebhookEndpointView,
  type WebhookAttemptView,
  type WebhookDeliveryView,
} from '../../../webhooks';
import { PageInfoType } from './connection';

export enum WebhookDeliveryStatusEnum {
  PENDING = 'PENDING',
  SUCCEEDED = 'SUCCEEDED',
  FAILED = 'FAILED',
}
registerEnumType(WebhookDeliveryStatusEnum, { name: 'WebhookDeliveryStatus' });

export enum WebhookEndpointStatusEnum {
  ENABLED = 'ENABLED',
  DISABLED = 'DISABLED',
}
registerEnumType(WebhookEndpointStatusEnum, { name: 'WebhookEndpointStatus' });

@ObjectType('WebhookEndpoint', {
  description: 'Where your webhooks go. Deliveries are signed per Standard Webhooks.',
})
export class WebhookEndpointType {
  @Field(() => ID, { description: 'we_...' }) id!: string;
  @Field(() => String) url!: string;
  @Field(() => [String], { description: 'The events it receives; ["*"] for all.' })
  enabledEvents!: string[];
  @Field(() => String, { nullable: true }) description!: string | null;
  @Field(() => WebhookEndpointStatusEnum, {
    description: 'DISABLED by you, or after the endpoint answered 410 Gone.',
  })
  status!: WebhookEndpointStatusEnum;
  @Field(() => String, {
    description:
      'The current signing secret (whsec_...). After a rotation the previous one also signs for 24 h.',
  })
  secret!: string;
  @Field(() => Boolean, { description: 'False after the endpoint answered 410 Gone.' })
  enabled!: boolean;
  @Field(() => GraphQLISODateTime) createdAt!: Date;

  static from(endpoint: WebhookEndpointView): WebhookEndpointType {
    return Object.assign(new WebhookEndpointType(), {
      id: endpoint.id,
      url: endpoint.url,
      enabledEvents: endpoint.enabledEvents,
      description: endpoint.description,
      status: endpoint.status as WebhookEndpointStatusEnum,
      secret: endpoint.secret,
      enabled: endpoint.enabled,
      createdAt: endpoint.createdAt,
    });
  }
}

@ObjectType('WebhookAttempt', { description: 'One HTTP attempt of a delivery.' })
export class WebhookAttemptType {
  @Field(() => Int, { description: '1 is the first attempt; 2 to 11 are retries.' })
  number!: number;
  @Field(() => String) url!: string;
  @Field(() => GraphQLISODateTime) attemptedAt!: Date;
  @Field(() => Int, { nullable: true, description: 'Null when no HTTP answer came.' })
  statusCode!: number | null;
  @Field(() => Int) latencyMs!: number;
  @Field(() => String, { nullable: true, description: 'Timeout, refused connection, ...' })
  error!: string | null;

  static from(a: WebhookAttemptView): WebhookAttemptType {
    return Object.assign(new WebhookAttemptType(), a);
  }
}

@ObjectType('WebhookDelivery', {
  description: 'One event sent (or being sent) to one of your endpoints.',
})
export class WebhookDeliveryType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { nullable: true, description: 'The endpoint it is owed to.' })
  endpointId!: string | null;
  @Field(() => ID) eventId!: string;
  @Field(() => String, { description: 'The event kind, e.g. deposit.settled.' }) event!: string;
  @Field(() => Boolean, { description: 'Made by replayWebhookEvent.' }) replay!: boolean;
  @Field(() => WebhookDeliveryStatusEnum) status!: WebhookDeliveryStatusEnum;
  @Field(() => Int) attemptCount!: number;
  @Field(() => GraphQLISODateTime, { nullable: true, description: 'Null once final.' })
  nextAttemptAt!: Date | null;
  @Field(() => Int, { nullable: true }) lastStatusCode!: number | null;
  @Field(() => String, { nullable: true }) lastError!: string | null;
  @Field(() => [WebhookAttemptType]) attempts!: WebhookAttemptType[];
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime) updatedAt!: Date;

  static from(d: WebhookDeliveryView): WebhookDeliveryType {
    return Object.assign(new WebhookDeliveryType(), {
      id: d.id,
      endpointId: d.endpointId,
      eventId: d.eventId,
      event: d.eventKind,
      replay: d.replay,
      status: d.status as WebhookDeliveryStatusEnum,
      attemptCount: d.attemptCount,
      nextAttemptAt: d.nextAttemptAt,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      attempts: d.attempts.map((a) => WebhookAttemptType.from(a)),
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
    });
  }
}

@ObjectType('WebhookDeliveryEdge')
export class WebhookDeliveryEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => WebhookDeliveryType) node!: WebhookDeliveryType;
}

@ObjectType('WebhookDeliveryConnection')
export class WebhookDeliveryConnectionType {
  @Field(() => [WebhookDeliveryEdgeType]) edges!: WebhookDeliveryEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}
