export type WebhookDeliveryStatus = 'PENDING' | 'SUCCEEDED' | 'FAILED';
