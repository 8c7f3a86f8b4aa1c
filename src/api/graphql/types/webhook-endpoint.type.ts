import { Field, ID, InputType, Int, ObjectType } from 'type-graphql';
import { PageInfoType } from './connection';
import { WebhookEndpointStatusEnum, WebhookEndpointType } from './webhook.type';

@InputType('CreateWebhookEndpointInput')
export class CreateWebhookEndpointInput {
  @Field(() => String) url!: string;
  @Field(() => [String], { description: 'Event names, or ["*"] for every event.' })
  enabledEvents!: string[];
  @Field(() => String, { nullable: true }) description?: string | null;
}

@InputType('UpdateWebhookEndpointInput', { description: 'Only the fields given change.' })
export class UpdateWebhookEndpointInput {
  @Field(() => String, { nullable: true }) url?: string | null;
  @Field(() => [String], { nullable: true }) enabledEvents?: string[] | null;
  @Field(() => String, { nullable: true }) description?: string | null;
  @Field(() => WebhookEndpointStatusEnum, {
    nullable: true,
    description: 'ENABLED again also after the endpoint answered 410.',
  })
  status?: WebhookEndpointStatusEnum | null;
}

@ObjectType('DeletedWebhookEndpoint')
export class DeletedWebhookEndpointType {
  @Field(() => ID) id!: string;
  @Field(() => Boolean) deleted!: boolean;
}

@ObjectType('WebhookEndpointEdge')
export class WebhookEndpointEdgeType {
  @Field(() => String) cursor!: string;
  @Field(() => WebhookEndpointType) node!: WebhookEndpointType;
}

@ObjectType('WebhookEndpointConnection', { description: 'Your webhook endpoints, oldest first.' })
export class WebhookEndpointConnectionType {
  @Field(() => [WebhookEndpointEdgeType]) edges!: WebhookEndpointEdgeType[];
  @Field(() => PageInfoType) pageInfo!: PageInfoType;
  @Field(() => Int) totalCount!: number;
}
