import type { Logger } from 'pino';
import type { ChannelSubscription, NotificationHub } from '../src/db/notification-hub';
import { DEPOSIT_EVENTS, PAYOUT_EVENTS, WEBHOOK_DELIVERIES } from '../src/events';

/**
 * Turns committed changes into work at once: a deposit entering PENDING_FX wakes this
 * runner's settlement drain (`onDepositPending`; no job row per deposit), a new payout (an
 * AUTO_WITHDRAW deposit converted, a withdrawal accepted) wakes the signing drain of its
 * chain (`onPayoutPending`; no job row per payout either). NOTIFY
 * arrives only after the ingestion commit, so settlement never sees a deposit that could
 * still roll back. Deposits whose notice was missed while disconnected are taken by the
 * settle-deposits sweep, payouts by the process-payouts sweep. A new webhook delivery wakes the webhook dispatcher
 * (`onWebhookDue`); the deliver-webhooks sweep covers a missed one. The three channels are
 * subscribed on the runner's one LISTEN connection (`notifications`).
 */
export function listenForDepositEvents(
  notifications: NotificationHub,
  log: Logger,
  onWebhookDue: () => void,
  onDepositPending: () => void,
  onPayoutPending: (chain: string | undefined) => void,
  onReturnDue: () => void = () => undefined,
): { start(): Promise<void>; stop(): Promise<void> } {
  const onNotification = (channel: string, payload: string) => {
    if (channel === WEBHOOK_DELIVERIES.name) {
      onWebhookDue();
      return;
    }
    if (channel === PAYOUT_EVENTS.name) {
      const payout = PAYOUT_EVENTS.parse(payload);
      if (!payout) return log.warn({ channel, payload }, 'unreadable notice');
      onPayoutPending(payout.chain);
      return;
    }
    const deposit = DEPOSIT_EVENTS.parse(payload);
    if (!deposit?.depositId) return log.warn({ channel, payload }, 'unreadable notice');
    if (deposit.status === 'PENDING_FX') onDepositPending();
    // A return started (by a merchant, the operator or a rule): send it now.
    if (deposit.status === 'RETURNING') onReturnDue();
  };
  let subscriptions: ChannelSubscription[] = [];
  return {
    start: async () => {
      for (const channel of [DEPOSIT_EVENTS.name, PAYOUT_EVENTS.name, WEBHOOK_DELIVERIES.name]) {
        subscriptions.push(await notifications.subscribe(channel, { onNotification }));
      }
    },
    stop: async () => {
      const closing = subscriptions;
      subscriptions = [];
      await Promise.all(closing.map((subscription) => subscription.close()));
    },
  };
}
