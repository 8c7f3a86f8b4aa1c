import type { OperationExample } from './operation-example';

/** Examples of the /v1/webhook_endpoints operations (see examples.ts). */
const AT = '2026-11-25T10:00:00.000Z';
const ENDPOINT_ID = 'we_3f9c2a7e5b1d4c8fa6e0b2d9c7a1f5e3';
const ENDPOINT = {
  id: ENDPOINT_ID,
  url: 'https://example.com/webhooks/onramp',
  enabled_events: ['deposit.settled', 'withdrawal.completed'],
  description: 'Settlements to the ledger service',
  status: 'ENABLED',
  disabled_reason: null,
  created_at: AT,
  updated_at: AT,
};
const WITH_SECRET = { ...ENDPOINT, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw7k6KfR6JcQo=' };
const DELIVERY = {
  id: 'whd_8b1e4f7a2c5d4e9fb3a6c0d2e5f8a1b4',
  endpoint_id: ENDPOINT_ID,
  event_id: 'evt_5c2a9e7b1f3d4a6c8e0b2d4f6a8c0e2b',
  event: 'test.ping',
  replay: false,
  status: 'SUCCEEDED',
  attempt_count: 1,
  next_attempt_at: null,
  last_status_code: 200,
  last_error: null,
  attempts: [
    {
      number: 1,
      url: 'https://example.com/webhooks/onramp',
      attempted_at: AT,
      status_code: 200,
      latency_ms: 84,
      error: null,
    },
  ],
  created_at: AT,
  updated_at: AT,
};
const PAGINATION = { total: 1, page: 1, per_page: 20, total_pages: 1 };

export const WEBHOOK_ENDPOINT_EXAMPLES: Record<string, OperationExample> = {
  createWebhookEndpoint: {
    request: {
      url: 'https://example.com/webhooks/onramp',
      enabled_events: ['deposit.settled', 'withdrawal.completed'],
      description: 'Settlements to the ledger service',
    },
    responses: { 201: WITH_SECRET },
  },
  listWebhookEndpoints: {
    parameters: { page: 1, per_page: 20 },
    responses: { 200: { webhook_endpoints: [ENDPOINT], pagination: PAGINATION } },
  },
  getWebhookEndpoint: { parameters: { id: ENDPOINT_ID }, responses: { 200: WITH_SECRET } },
  updateWebhookEndpoint: {
    parameters: { id: ENDPOINT_ID },
    request: { status: 'DISABLED' },
    responses: {
      200: { ...ENDPOINT, status: 'DISABLED', disabled_reason: 'Disabled by the merchant' },
    },
  },
  deleteWebhookEndpoint: {
    parameters: { id: ENDPOINT_ID },
    responses: { 200: { id: ENDPOINT_ID, deleted: true } },
  },
  rotateWebhookEndpointSecret: {
    parameters: { id: ENDPOINT_ID },
    responses: { 200: WITH_SECRET },
  },
  testWebhookEndpoint: { parameters: { id: ENDPOINT_ID }, responses: { 200: DELIVERY } },
  listWebhookEndpointDeliveries: {
    parameters: { id: ENDPOINT_ID, page: 1, per_page: 20 },
    responses: { 200: { deliveries: [DELIVERY], pagination: PAGINATION } },
  },
};
