import type { Logger } from 'pino';
import { PgListener } from '../src/db/pg-listener';
import { settleDeposit } from './settle-deposit.job';
import { sendPayout } from './send-payout.job';
import type { Enqueue } from './job';

/** The payload the `deposits_status_event` trigger sends on channel `deposit_events`. */
interface DepositEventNotice {
  deposit_id: string;
  status: string;
  settlement_mode: string;
}

/** The payload the `payouts_notify` trigger sends on channel `payout_events`. */
interface PayoutNotice {
  payout_id: string;
}

/**
 * Turns committed changes into jobs at once: a deposit entering PENDING_FX is handed to
 * settlement, a new payout (an AUTO_WITHDRAW deposit converted, a withdrawal accepted) to
 * send-payout. NOTIFY arrives only after the ingestion commit,
 * so settlement never sees a deposit that could still roll back. Notices missed while
 * disconnected are picked up by the redrive sweep. A new webhook delivery wakes the webhook
 * dispatcher (`onWebhookDue`); the deliver-webhooks sweep covers a missed one.
 */
export function listenForDepositEvents(
  databaseUrl: string,
  enqueue: Enqueue,
  log: Logger,
  onWebhookDue: () => void,
): PgListener {
  return new PgListener({
    databaseUrl,
    channels: ['deposit_events', 'payout_events', 'webhook_deliveries'],
    log,
    onNotification: (channel, payload) => {
      if (channel === 'webhook_deliveries') {
        onWebhookDue();
        return;
      }
      let notice: DepositEventNotice & PayoutNotice;
      try {
        notice = JSON.parse(payload) as DepositEventNotice & PayoutNotice;
      } catch {
        log.warn({ payload }, 'unreadable notice');
        return;
      }
      if (channel === 'payout_events') {
        sendPayout(enqueue, notice.payout_id).catch((error: unknown) =>
          log.warn({ err: error, payoutId: notice.payout_id }, 'could not enqueue payout'),
        );
        return;
      }
      if (notice.status === 'PENDING_FX') {
        settleDeposit(enqueue, notice.deposit_id).catch((error: unknown) =>
          log.warn({ err: error, depositId: notice.deposit_id }, 'could not enqueue settlement'),
        );
      }
    },
  });
}
