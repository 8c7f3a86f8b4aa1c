import { Type } from 'typebox';
import { SUBSCRIBABLE_EVENTS } from '../../domain/webhook-events';
import { MAX_WEBHOOK_URL_LENGTH } from '../../domain/webhook-url';

const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

const EnabledEvents = Type.Array(Type.String({ enum: [...SUBSCRIBABLE_EVENTS] }), {
  minItems: 1,
  maxItems: SUBSCRIBABLE_EVENTS.length,
  description: 'The events this endpoint receives: a list of event names, or ["*"] for all',
});

const Description = Nullable(Type.String({ maxLength: 500 }));

/** Values are checked by the service too (REST and GraphQL answer the same codes). */
export const CreateWebhookEndpointBody = Type.Object(
  {
    url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH }),
    enabled_events: EnabledEvents,
    description: Type.Optional(Description),
  },
  { additionalProperties: false },
);

export const UpdateWebhookEndpointBody = Type.Object(
  {
    url: Type.Optional(Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH })),
    enabled_events: Type.Optional(EnabledEvents),
    description: Type.Optional(Description),
    status: Type.Optional(
      Type.String({
        enum: ['ENABLED', 'DISABLED'],
        description: 'ENABLED again also after the endpoint answered 410',
      }),
    ),
  },
  { additionalProperties: false },
);

const endpointFields = {
  id: Type.String({ description: 'we_...' }),
  url: Type.String(),
  enabled_events: Type.Array(Type.String()),
  description: Nullable(Type.String()),
  status: Type.String({ enum: ['ENABLED', 'DISABLED'] }),
  disabled_reason: Nullable(
    Type.String({ description: 'Disabled by you, or its URL answered 410' }),
  ),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const WebhookEndpointResponse = Type.Object(endpointFields, {
  $id: 'WebhookEndpoint',
  description: 'A webhook endpoint (lists show no secret)',
});

export const WebhookEndpointWithSecretResponse = Type.Object(
  {
    ...endpointFields,
    secret: Type.String({
      description: 'whsec_...: signs every delivery (after a rotation the previous one too, 24 h)',
    }),
  },
  { $id: 'WebhookEndpointWithSecret', description: 'A webhook endpoint and its signing secret' },
);

export const DeletedWebhookEndpointResponse = Type.Object(
  { id: Type.String(), deleted: Type.Boolean({ enum: [true] }) },
  { $id: 'DeletedWebhookEndpoint', description: 'Deleted: its pending deliveries stop' },
);

export const WebhookDeliveryResponse = Type.Object(
  {
    id: Type.String({ description: 'whd_...' }),
    endpoint_id: Nullable(Type.String({ description: 'The endpoint it is owed to' })),
    event_id: Type.String(),
    event: Type.String({ description: 'The event kind, e.g. deposit.settled or test.ping' }),
    replay: Type.Boolean(),
    status: Type.String({ enum: ['PENDING', 'SUCCEEDED', 'FAILED'] }),
    attempt_count: Type.Integer(),
    next_attempt_at: Nullable(Type.String({ format: 'date-time' })),
    last_status_code: Type.Union([Type.Integer(), Type.Null()]),
    last_error: Nullable(Type.String()),
    attempts: Type.Array(
      Type.Object({
        number: Type.Integer(),
        url: Type.String(),
        attempted_at: Type.String({ format: 'date-time' }),
        status_code: Type.Union([Type.Integer(), Type.Null()]),
        latency_ms: Type.Integer(),
        error: Nullable(Type.String()),
      }),
    ),
    created_at: Type.String({ format: 'date-time' }),
    updated_at: Type.String({ format: 'date-time' }),
  },
  { $id: 'WebhookDelivery', description: 'One event sent (or being sent) to one endpoint' },
);
