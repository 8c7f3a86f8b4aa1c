/**
 * The events module's entry point: what transports, jobs and other modules may use.
 * Everything else in this folder is the module's own.
 */
export { CREDENTIAL_REVOKED, DEPOSIT_EVENTS, PAYOUT_EVENTS, WEBHOOK_DELIVERIES } from './channels';
export type { DepositEventNotice } from './channels';
export { DepositEventStore } from './deposit-event-store';
export type { DepositEventRow } from './deposit-event-store';
export { depositStatusEntries, eventKinds, eventOwner, outboxEvents } from './event-reads';
export type { OutboxEvent, StatusEntry } from './event-reads';
export { writeTestPingEvent } from './test-ping';
export { annotateDepositEvent, writeMerchantEvent } from './event-writes';
export type { MerchantEvent } from './event-writes';
