/**
 * The webhooks module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { WebhookDeliveryService } from './webhook-delivery.service';
export type { AttemptOutcome, WebhookSender } from './webhook-delivery.service';
export type { WebhookAttemptObserver } from './webhook-dispatcher';
export { WebhookDispatcher } from './webhook-dispatcher';
export type { DepositTraces } from './webhook-dispatcher';
export { WebhookEndpointService } from './webhook-endpoint.service';
export type { EndpointInput, EndpointPatch, WebhookEndpointView } from './webhook-endpoint.service';
export { MAX_ENDPOINTS_PER_MERCHANT } from './webhook-endpoint-rows';
export { resealWebhookSecrets } from './webhook-secret-reseal';
export { WebhookLogService } from './webhook-log.service';
export type { WebhookAttemptView, WebhookDeliveryView } from './webhook-log.service';
export { WebhookSendBudget, WebhookSendsLimited } from './webhook-send-budget';
export { WEBHOOK_BACKLOG_SQL } from './webhook-backlog';
