import type { WebhookDeliveryView, WebhookEndpointView } from '../../webhooks';

/** An endpoint as REST shows it; the secret only where the route says so. */
export function presentWebhookEndpoint(e: WebhookEndpointView) {
  return {
    id: e.id,
    url: e.url,
    enabled_events: e.enabledEvents,
    description: e.description,
    status: e.status,
    disabled_reason: e.disabledReason,
    created_at: e.createdAt.toISOString(),
    updated_at: e.updatedAt.toISOString(),
  };
}

export function presentWebhookEndpointWithSecret(e: WebhookEndpointView) {
  return { ...presentWebhookEndpoint(e), secret: e.secret };
}

export function presentWebhookDelivery(d: WebhookDeliveryView) {
  return {
    id: d.id,
    endpoint_id: d.endpointId,
    event_id: d.eventId,
    event: d.eventKind,
    replay: d.replay,
    status: d.status,
    attempt_count: d.attemptCount,
    next_attempt_at: d.nextAttemptAt?.toISOString() ?? null,
    last_status_code: d.lastStatusCode,
    last_error: d.lastError,
    attempts: d.attempts.map((a) => ({
      number: a.number,
      url: a.url,
      attempted_at: a.attemptedAt.toISOString(),
      status_code: a.statusCode,
      latency_ms: a.latencyMs,
      error: a.error,
    })),
    created_at: d.createdAt.toISOString(),
    updated_at: d.updatedAt.toISOString(),
  };
}
